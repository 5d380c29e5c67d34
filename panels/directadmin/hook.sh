#!/bin/sh
# wpp {{VERSION}}, written by `wpp install directadmin`. DirectAdmin runs every script in this folder
# after {{HOOK}}; the others here are not wpp's. The event's values are in the environment:
# wpp queues the event and returns at once, so DirectAdmin never waits on the provider.
exec '{{LAUNCHER}}' hook directadmin {{HOOK}}
