# The sanitize build (preset `sanitize`, `make check-sanitize`, docs/testing.md): every target built with
# AddressSanitizer and UndefinedBehaviorSanitizer. -fno-sanitize-recover=all makes every report end the process
# with a failure, so a test that triggers one fails. The preset compiles with Clang (half GCC's build time);
# GCC works as well. ThreadSanitizer is not used: the OpenMP runtime is not instrumented, so it reports false
# races in every OpenMP region.
set(LIEVI_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
add_compile_options(${LIEVI_SANITIZE_FLAGS})
add_link_options(-fsanitize=address,undefined)

# The environment of the tests under the `sanitize` label (inherited by the `lievi` processes they start):
# stop at the first report with a stack trace; leaks are reported (LeakSanitizer, on by default with ASan).
set(LIEVI_SANITIZE_ENV
    "ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:check_initialization_order=1:strict_init_order=1"
    "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
    CACHE INTERNAL "")

# Sampling of the bad-input corpus under the label (tests/bad_input/CMakeLists.txt): 1 runs every case.
set(LIEVI_SANITIZE_SHARDS 1 CACHE STRING "Run one bad-input case in this many under the sanitizers")
set(LIEVI_SANITIZE_SHARD 0 CACHE STRING "Which of the LIEVI_SANITIZE_SHARDS samples to run")

# The short model tests run under the label: gtest executables that take seconds under the sanitizers, each
# one ctest test `sanitize.<executable>`, with a gtest filter (after the ':') leaving out long cases. The
# bad-input corpus (tests/bad_input) and the fuzz driver (tests/fuzz) add their own tests to the label.
set(LIEVI_SANITIZE_TESTS
    "test_io"                 # scenario reader, validation, outputs (in-process)
    "test_wave_scenario"
    "test_beam_scenario"
    "test_mechanics_scenario"
    "test_cli"                # the lievi program: run, validate, schema, exit codes (rigid body)
    "test_ddb_unit"           # rigid body: one-step properties of the DDB methods
    "test_moser_veselov"
    "test_beam_linear"        # beam: linearised vibration against the analytic frequencies
    "test_wave_deterministic" # wave: the deterministic scheme against the exact solution
    CACHE INTERNAL "")

# Called after tests/ is added: defines the tests of the label and the target building what they need
# (`cmake --build --preset sanitize` builds only that).
function(lievi_add_sanitize_tests)
  add_custom_target(lievi_sanitize_deps)
  foreach(entry IN LISTS LIEVI_SANITIZE_TESTS)
    string(FIND "${entry}" ":" colon)
    if(colon EQUAL -1)
      set(name "${entry}")
      set(filter "*")
    else()
      string(SUBSTRING "${entry}" 0 ${colon} name)
      math(EXPR from "${colon} + 1")
      string(SUBSTRING "${entry}" ${from} -1 filter)
    endif()
    if(NOT TARGET ${name})
      message(FATAL_ERROR "cmake/sanitize.cmake: no test executable ${name}")
    endif()
    add_test(NAME sanitize.${name} COMMAND ${name} --gtest_filter=${filter} --gtest_brief=1)
    set_tests_properties(sanitize.${name} PROPERTIES LABELS sanitize TIMEOUT 900 ENVIRONMENT "${LIEVI_SANITIZE_ENV}")
    add_dependencies(lievi_sanitize_deps ${name})
  endforeach()
  foreach(t lievi_cli test_bad_input fuzz_scenario)
    if(TARGET ${t})
      add_dependencies(lievi_sanitize_deps ${t})
    endif()
  endforeach()
endfunction()
