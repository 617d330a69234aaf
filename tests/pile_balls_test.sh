#!/bin/sh
# The pile scene as it starts (a dozen balls and a dozen rings): no point of
# any body inside another body or inside its own, at the end of every step
# of 4 s. `psb sim --export-obj` writes every step and psb-check-contact,
# which shares no code with psb, checks them by the winding number. Before
# the struts (psb_body_params.fold_limit), balls folded into themselves as
# they landed: 71 points were found inside their own ball, most of them
# ball 8's over steps 116 to 134 (docs/contact.md, "Struts").
#
# usage: pile_balls_test.sh PATH/TO/psb PATH/TO/psb-check-contact
set -u

# shellcheck source=tests/pile_lib.sh
. "$(dirname "$0")/pile_lib.sh"
pile_start pile_balls_test.sh "$@"
pile_every_step "balls and rings" 23 --threads 2
echo "pile_balls: no point inside another body or itself over 241 steps"
