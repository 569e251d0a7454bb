/*===- runtime/Interrupt.h - Stopping a running program on request --------===*
 *
 * A process-wide flag that asks running code to stop (the REPL sets it from its SIGINT handler
 * when the user presses Ctrl-C). JIT- and AOT-generated loops read it at each back-edge (one
 * load and a branch); the graph executor reads it before each node. Code that sees it set
 * stops as on a run-time error whose message is "interrupted" (dlm_interrupted), so every
 * tensor the program held is released and the caller keeps running. Nothing clears the flag
 * but its owner (dlm_interrupt_clear), so all threads of a run see the same request.
 *
 *   dlm::rt::InterruptHandler onCtrlC;   // SIGINT now sets the flag
 *   dlm_interrupt_clear();
 *   int status = run();                  // 1 with dlm_last_error() "interrupted"
 *
 *===----------------------------------------------------------------------===*/
#ifndef DLM_RUNTIME_INTERRUPT_H
#define DLM_RUNTIME_INTERRUPT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Nonzero once a stop was requested. Generated code loads it as a 32-bit integer (an atomic
 * monotonic load). Written only through the functions below. */
extern volatile int32_t dlm_interrupt_flag;

/* Requests a stop. Async-signal-safe. */
void dlm_interrupt_request(void);
/* Withdraws the request (before the next run). */
void dlm_interrupt_clear(void);
/* Whether a stop was requested. */
int32_t dlm_interrupt_requested(void);
/* What code that saw the flag calls on its way out: sets dlm_last_error() to "interrupted" and
 * returns 1 (the error status). */
int32_t dlm_interrupted(void);

#ifdef __cplusplus
}

#include <memory>

namespace dlm::rt {

/// The message of a stop on request (what dlm_last_error() and the executor's status say).
inline constexpr const char *kInterruptedMessage = "interrupted";

/// While alive, SIGINT sets dlm_interrupt_flag instead of ending the process; a second SIGINT
/// that arrives before anything withdrew the first ends the process with status 130 (a kernel
/// that runs long between two checks cannot trap the user). Restores the previous disposition
/// when destroyed. One at a time. A process that started with SIGINT ignored keeps ignoring it
/// (as Python does).
class InterruptHandler {
public:
  InterruptHandler();
  ~InterruptHandler();
  InterruptHandler(const InterruptHandler &) = delete;
  InterruptHandler &operator=(const InterruptHandler &) = delete;

private:
  struct Saved;
  std::unique_ptr<Saved> saved;
};

} // namespace dlm::rt
#endif

#endif // DLM_RUNTIME_INTERRUPT_H
