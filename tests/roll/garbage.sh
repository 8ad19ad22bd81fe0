#!/bin/sh
# A decider that answers every request with something that is not a decision.
while read -r line; do echo 'FIFO please, it is obviously best'; done
