#pragma once
/// @file tests/fuzz/fuzz_target.hpp
/// @brief The fuzz target for the scenario reader and validator (docs/testing.md "Fuzzing").
///
/// One input is a scenario text, optionally followed by a NUL byte and `--set` overrides, one `key=value`
/// per line:   <TOML text> [ '\0' <override> ( '\n' <override> )* ].
/// The target does what `lievi validate` does: io::parse_any_scenario, the a-priori checks of the model's run
/// (prepare_rigid_body, check_wave, check_beam, check_mechanics), the resolved printout (to_toml,
/// resolved_entries, ignored_key_notes), and also reads the printout back, which must give the same resolved
/// entries ("loadable again", io/scenario.hpp).
///
/// lievi::invalid_argument is the expected refusal. Anything else is a finding: another exception, a
/// printout that does not read back the same, a crash or a sanitizer report (the process dies; the drivers
/// save the input first). The entry point `LLVMFuzzerTestOneInput` (fuzz_target.cpp) aborts on a finding, as
/// libFuzzer expects; the GCC driver (fuzz_driver.cpp) calls `run_one` and reports instead.
#include <cstddef>
#include <cstdint>
#include <string>

namespace lievi::fuzz {

/// Inputs longer than this are cut (the drivers never make longer ones): a bigger scenario tests nothing the
/// reader's size limit would not, and makes every execution slower.
inline constexpr std::size_t max_input_size = 64 * 1024;

struct Outcome {
  enum class Kind {
    refused,    ///< lievi::invalid_argument (bad input refused: the expected outcome of most inputs)
    accepted,   ///< validated, printed and read back the same
    memory_cap, ///< std::bad_alloc: an allocation above the driver's cap (fuzz_driver.cpp), not a finding
    known,      ///< a known defect of issue 22 still being fixed (`what` names it), not a finding
    finding     ///< anything else: `what` says what
  };
  Kind kind = Kind::refused;
  std::string what;       ///< finding: the exception or the mismatch; refused: the first issue
  std::string signature;  ///< a short digest of the outcome (issue keys and messages without numbers)
};

/// Split an input into scenario text and overrides, then run it (no exception escapes).
Outcome run_one(const std::uint8_t* data, std::size_t size);

}  // namespace lievi::fuzz
