#!/usr/bin/zsh -f
# zsh_complete.zsh DIR OUT WORDS...: the matches zsh's completion system offers
# for the last of WORDS (typed on a command line, then TAB), with DIR (holding
# _kinegraph) first in $fpath: one per line of OUT. An interactive zsh on a
# pseudo-terminal (zsh/zpty) does the completing; a compadd wrapped around the
# builtin writes down what the completion functions add, as far as it matches
# what is typed. Exit 77 (skip) without zsh/zpty.
zmodload zsh/zpty zsh/datetime || exit 77
dir=$1 out=$2
shift 2
: >$out
zpty z zsh -f -i
zpty -w z "PS1=; fpath=(${(q)dir} \$fpath); autoload -U compinit; compinit -u -D"
# calls that only ask (-O, -A, -D) pass through
zpty -w z "compadd() { if (( \${@[(I)-[OAD]]} )); then builtin compadd \"\$@\"; return; fi;
  local -a m; builtin compadd -O m \"\$@\"; print -rl -- \$m >>${(q)out}; builtin compadd \"\$@\"; }"
zpty -w z "comppostfuncs=(exit)" # the shell ends once it has completed
zpty -w z "$*"$'\t'
# until it has (at most 10 s), its screen read and dropped
float end=$(( EPOCHREALTIME + 10 ))
while (( EPOCHREALTIME < end )) && zpty -t z; do
    zpty -r -t z line || sleep 0.05
done
zpty -d z
