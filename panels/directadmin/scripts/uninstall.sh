#!/bin/sh
# wpp {{VERSION}}: DirectAdmin's plugin manager runs this when the plugin is removed there. The hooks
# in scripts/custom/ and the service go with it; the data in /var/lib/wpp and /etc/wpp/env stay.
set -eu
exec '{{LAUNCHER}}' uninstall directadmin
