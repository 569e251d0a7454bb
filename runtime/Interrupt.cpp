//===- runtime/Interrupt.cpp - Stopping a running program on request ------===//
#include "runtime/Interrupt.h"

#include "runtime/CApi.h"

#include <csignal>
#include <unistd.h>

// A volatile int32_t: what a signal handler may write (sig_atomic_t is int on every target dlm
// builds for) and what generated code reads with one load. Reads from other threads use
// __atomic builtins so that they are not data races.
static_assert(sizeof(sig_atomic_t) == sizeof(int32_t), "the flag must be a sig_atomic_t");
volatile int32_t dlm_interrupt_flag = 0;

extern "C" {

void dlm_interrupt_request(void) { __atomic_store_n(&dlm_interrupt_flag, 1, __ATOMIC_RELAXED); }

void dlm_interrupt_clear(void) { __atomic_store_n(&dlm_interrupt_flag, 0, __ATOMIC_RELAXED); }

int32_t dlm_interrupt_requested(void) {
  return __atomic_load_n(&dlm_interrupt_flag, __ATOMIC_RELAXED);
}

int32_t dlm_interrupted(void) {
  dlm_set_error(dlm::rt::kInterruptedMessage);
  return 1;
}

} // extern "C"

namespace dlm::rt {

struct InterruptHandler::Saved {
  struct sigaction previous;
};

static void onSigint(int) {
  if (dlm_interrupt_requested()) {
    // The first request has not been seen yet: the program is inside something that does not
    // check (a long kernel). Leave now, as the default action would, with the shell's status.
    const char message[] = "\ndlm: interrupted twice; exiting\n";
    ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
    _exit(128 + SIGINT);
  }
  dlm_interrupt_request();
}

InterruptHandler::InterruptHandler() : saved(std::make_unique<Saved>()) {
  sigaction(SIGINT, nullptr, &saved->previous);
  // A process started with SIGINT ignored (`nohup`, `cmd &` in a script) keeps ignoring it.
  if (!(saved->previous.sa_flags & SA_SIGINFO) && saved->previous.sa_handler == SIG_IGN)
    return;
  struct sigaction action = {};
  action.sa_handler = onSigint;
  sigemptyset(&action.sa_mask);
  // No SA_RESTART: a read() at the prompt returns EINTR, so the line editor gives up the line.
  action.sa_flags = 0;
  sigaction(SIGINT, &action, nullptr);
}

InterruptHandler::~InterruptHandler() { sigaction(SIGINT, &saved->previous, nullptr); }

} // namespace dlm::rt
