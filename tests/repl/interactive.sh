#!/bin/bash
# Drives `dlm` in a tmux pane as a user would: a definition, an error, a use of the earlier
# value, Tab completion (a variable, a built-in, a stdlib function), Ctrl-C at the prompt
# (drops the line), Ctrl-C during a long loop (the prompt returns, the state is kept), Ctrl-D.
# Usage: interactive.sh DLM_BINARY
set -u
dlm="$1"
if ! command -v tmux >/dev/null; then
  echo "SKIPPED: tmux is not installed; the interactive REPL test did not run"
  exit 0
fi
s="dlm-repl-test-$$"
status_file=$(mktemp)
trap 'rm -f "$status_file"' EXIT
# The pane's shell records how dlm ended: tmux 3.3's #{pane_dead_status} is not always filled in.
tmux -L "$s" new-session -d -s "$s" -x 120 -y 40 \
  "env DLM_HISTORY= DLM_STDLIB='${DLM_STDLIB:-}' '$dlm'; echo \$? > '$status_file'"
tmux -L "$s" set-option -t "$s" remain-on-exit on >/dev/null
wait_for() { # wait until the pane shows $1 (up to 10 s)
  for _ in $(seq 100); do
    tmux -L "$s" capture-pane -p -t "$s" | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  echo "TIMEOUT waiting for: $1"; tmux -L "$s" capture-pane -p -t "$s"; tmux -L "$s" kill-server; exit 1
}
wait_prompt_after() { # wait until line $1 is followed by an empty prompt: dlm reads, Tab completes
  for _ in $(seq 100); do
    [ "$(tmux -L "$s" capture-pane -p -t "$s" | grep -v '^$' | tail -2 | sed 's/ *$//')" = "$1"$'\n'">>>" ] && return 0
    sleep 0.1
  done
  echo "TIMEOUT waiting for a prompt after: $1"; tmux -L "$s" capture-pane -p -t "$s"; tmux -L "$s" kill-server; exit 1
}
wait_for ">>>"
tmux -L "$s" send-keys -t "$s" "counter_value = arange(4) * 2.0" Enter
tmux -L "$s" send-keys -t "$s" "counter_value @ ones(3)" Enter
wait_for "error: matmul"
tmux -L "$s" send-keys -t "$s" "sum(counter_v" Tab
tmux -L "$s" send-keys -t "$s" ")" Enter
wait_for "tensor(12.)"
# Completion of a newer built-in and of a stdlib module's function (their lists come from sema's
# table and the stdlib files, not from the REPL).
wait_prompt_after "tensor(12.)"
tmux -L "$s" send-keys -t "$s" "len(randpe" Tab
wait_for "len(randperm"
tmux -L "$s" send-keys -t "$s" "(7)) + 1000" Enter
wait_for "1007"
tmux -L "$s" send-keys -t "$s" "import nn" Enter
wait_prompt_after ">>> import nn"
tmux -L "$s" send-keys -t "$s" "sum(nn.init_ls" Tab
wait_for "sum(nn.init_lstm"
tmux -L "$s" send-keys -t "$s" "(3, 5)[2])" Enter
wait_for "tensor(5.)"
# An attribute after a value: counter_value.sh -> counter_value.shape.
wait_prompt_after "tensor(5.)"
tmux -L "$s" send-keys -t "$s" "counter_value.sh" Tab
wait_for "counter_value.shape"
tmux -L "$s" send-keys -t "$s" "[0] + 3000" Enter
wait_for "3004"
# Ctrl-C at the prompt: the half-typed line is dropped, never run.
tmux -L "$s" send-keys -t "$s" "print(\"dropped line\")"
wait_for 'print("dropped line")'
tmux -L "$s" send-keys -t "$s" C-c
# A loop that would run for hours; Ctrl-C once it runs (it prints first).
tmux -L "$s" send-keys -t "$s" "steps = 0" Enter
tmux -L "$s" send-keys -t "$s" "while steps >= 0:" Enter "    if steps == 1:" Enter "        print(\"loop\", \"running\")" Enter \
  "    steps = steps + 1" Enter Enter
wait_for "loop running"
tmux -L "$s" send-keys -t "$s" C-c
wait_for "error: interrupted"
tmux -L "$s" send-keys -t "$s" "steps - 41" Enter
wait_for "-41"
tmux -L "$s" send-keys -t "$s" C-d
# Wait until dlm has exited and its status is recorded (a crash at exit shows as 128+signal).
for _ in $(seq 100); do
  [ -s "$status_file" ] && break
  sleep 0.1
done
tmux -L "$s" capture-pane -p -S - -t "$s" # the whole history: the start may have scrolled off
echo "pane: exited status=$(cat "$status_file")"
tmux -L "$s" kill-server
