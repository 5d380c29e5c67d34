#!/bin/sh
# wpp {{VERSION}}: DirectAdmin's plugin manager runs this after installing or updating the plugin.
# `wpp install directadmin` wrote this folder and keeps it; running it again puts back anything
# missing and changes nothing otherwise.
set -eu
exec '{{LAUNCHER}}' install directadmin
