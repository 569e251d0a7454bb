/*===- runtime/AotLibrary.h - What a library built by dlmc --emit=lib calls --===*
 *
 * `dlmc --emit=lib FILE.dlm -o libNAME.so` (docs/embedding.md "AOT libraries") compiles each
 * exported def into an entry (`main`/`init` functions with the JIT entry's calling convention,
 * compiler/codegen/Codegen.h EntryFunctions) and generates one typed C function per export
 * that hands its pointers to dlm_lib_call. The generated C file repeats the declarations below
 * (it includes no dlm header): change them together with compiler/driver/Library.cpp, and
 * raise DLM_LIB_ABI.
 *
 * An export's signature is one string, parsed on its first call:
 *     "B,N|w:f32[4,N];x:f32[B,4];lr:f64[]|out:f32[B,N]"
 * the symbolic sizes in the order the typed function takes them, then each argument leaf and
 * each result leaf as name:dtype[dims] (a dim is a size or a symbol; a scalar is 0-d).
 *
 *===----------------------------------------------------------------------===*/
#ifndef DLM_RUNTIME_AOTLIBRARY_H
#define DLM_RUNTIME_AOTLIBRARY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The layout version of dlm_lib_entry; a generated file states the one it was written for. */
#define DLM_LIB_ABI 1

typedef struct dlm_lib_entry {
  int32_t abi;           /* DLM_LIB_ABI */
  const char *name;      /* the exported C function, for messages */
  const char *signature; /* as above */
  int32_t (*main)(void *const *args, void **results);
  int32_t (*init)(void);
  /* The copies compiled with FMA for a generic x86-64 target (or NULL), run instead when the
   * CPU has FMA (runtime/CpuDispatch.h), as an AOT executable does. */
  int32_t (*main_fma)(void *const *args, void **results);
  int32_t (*init_fma)(void);
  void *state; /* the runtime's: NULL until the first call */
} dlm_lib_entry;

/* Runs `entry` on the host's row-major arrays: `sizes` are the symbolic sizes, `inputs` one
 * pointer per argument leaf (a scalar's too), `outputs` one caller-allocated array per result
 * leaf, written with the result's elements (a NULL output is skipped). The first call of an
 * entry runs its `init` once. Returns 0, 1 after a run-time error of the program, 2 after a bad
 * call (a negative size, a NULL input); dlm_lib_last_error() then says what and where.
 * Thread-safe. */
int32_t dlm_lib_call(dlm_lib_entry *entry, const int64_t *sizes, const void *const *inputs,
                     void *const *outputs);

/* The diagnostic text of the last failed dlm_lib_call on this thread ("" if none). */
const char *dlm_lib_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* DLM_RUNTIME_AOTLIBRARY_H */
