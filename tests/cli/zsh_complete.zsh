# Drives zsh's real completion in a pseudo-terminal (zsh/zpty): starts `zsh -f -i` with the
# directory holding _cudnnup first in $fpath, runs compinit, types LINE and a TAB, and prints
# what the terminal showed once it contains PATTERN. Used by tests/cli/completions_posix_test.cc;
# the test's process timeout stops it if the pattern never shows up.
# usage: zsh -f zsh_complete.zsh FUNCTION_DIR LINE PATTERN
zmodload zsh/zpty || exit 2
local dir=$1 line=$2 pattern=$3 out
zpty -b z zsh -f -i
zpty -w z "PS1='ready> '; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D; zstyle ':completion:*' list-prompt ''; print -r -- compinit-\$((1+1))"
zpty -r z out '*compinit-2*' || exit 3
zpty -w -n z "$line"$'\t'
zpty -r z out "*${pattern}*" || exit 4
print -r -- "$out"
zpty -d z
