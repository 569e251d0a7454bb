# DLM_STATIC_LLVM: link the tools (dlm, dlmc, dlm-opt: dlm_llvm(EXE STATIC)) against
# the static archives of LLVM's components, ANTLR and OpenBLAS, as non-PIE executables. Measured
# on `dlm --version`: the shared libLLVM costs ~340k relative + ~29k symbol relocations and ~2800
# page faults at every start (~14 ms of CPU); static, ld.so has ~3k relocations left. The test
# and tool binaries keep the shared libraries (link time on two cores). Included by the
# top-level CMakeLists.txt once LLVM, ANTLR and OpenBLAS are found.

# The LLVM components the compiler uses (their dependencies come with them).
set(DLM_LLVM_COMPONENTS
  Support Core Analysis TransformUtils ipo Vectorize Passes IRReader BitReader BitWriter
  Target TargetParser MC ExecutionEngine OrcJIT
  X86CodeGen X86AsmParser X86Desc X86Info NVPTXCodeGen NVPTXDesc NVPTXInfo
  LineEditor)

# LLVMSupport's archive names zstd::libzstd_shared, which LLVM's config defines only when zstd's
# development files are installed; the run-time library is enough to link.
if(NOT TARGET zstd::libzstd_shared)
  find_library(DLM_ZSTD_LIBRARY NAMES zstd libzstd.so.1)
  if(DLM_ZSTD_LIBRARY)
    add_library(zstd::libzstd_shared SHARED IMPORTED GLOBAL)
    set_target_properties(zstd::libzstd_shared PROPERTIES IMPORTED_LOCATION ${DLM_ZSTD_LIBRARY})
  endif()
endif()
set(dlm_static_found OFF)
if(EXISTS "${LLVM_LIBRARY_DIR}/libLLVMSupport.a" AND TARGET antlr4_static AND TARGET zstd::libzstd_shared)
  set(dlm_static_found ON)
endif()
option(DLM_STATIC_LLVM "Link the tools with static LLVM, ANTLR and OpenBLAS, non-PIE" ${dlm_static_found})

add_library(dlm_llvm_static INTERFACE)
set(DLM_OPENBLAS ${OPENBLAS_LIBRARY})
set(DLM_ANTLR antlr4_shared)
if(DLM_STATIC_LLVM)
  if(NOT dlm_static_found)
    message(FATAL_ERROR "DLM_STATIC_LLVM=ON needs LLVM's static libraries (${LLVM_LIBRARY_DIR}/libLLVMSupport.a) "
                        "and ANTLR's (antlr4_static); configure with -DDLM_STATIC_LLVM=OFF to link the shared ones")
  endif()
  llvm_map_components_to_libnames(dlm_llvm_libs ${DLM_LLVM_COMPONENTS})
  target_link_libraries(dlm_llvm_static INTERFACE ${dlm_llvm_libs})
  set(DLM_ANTLR "$<IF:${DLM_IF_STATIC},antlr4_static,antlr4_shared>")
  # OpenBLAS's shared library alone has ~16k symbol relocations; static when Debian's archive is
  # there. Its LAPACK part is Fortran: libgfortran, which --as-needed drops while nothing uses it.
  find_library(OPENBLAS_STATIC_LIBRARY NAMES libopenblas.a)
  find_library(GFORTRAN_LIBRARY NAMES gfortran libgfortran.so.5)
  if(OPENBLAS_STATIC_LIBRARY)
    add_library(dlm_openblas_static INTERFACE)
    target_link_libraries(dlm_openblas_static INTERFACE ${OPENBLAS_STATIC_LIBRARY} Threads::Threads)
    if(GFORTRAN_LIBRARY)
      target_link_libraries(dlm_openblas_static INTERFACE ${GFORTRAN_LIBRARY})
    endif()
    set(DLM_OPENBLAS "$<IF:${DLM_IF_STATIC},dlm_openblas_static,${OPENBLAS_LIBRARY}>")
  endif()
  include(CheckLinkerFlag)
  check_linker_flag(CXX -fuse-ld=lld DLM_HAVE_LLD)
  set(DLM_STATIC_LINKER "")
  if(DLM_HAVE_LLD)
    set(DLM_STATIC_LINKER -fuse-ld=lld)
  endif()
  message(STATUS "dlm: the tools link static LLVM, ANTLR and OpenBLAS (${OPENBLAS_STATIC_LIBRARY}), non-PIE ${DLM_STATIC_LINKER}")
else()
  target_link_libraries(dlm_llvm_static INTERFACE LLVM)
  message(STATUS "dlm: every binary links the shared libLLVM")
endif()
