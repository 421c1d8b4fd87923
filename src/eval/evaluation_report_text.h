// The readable form of an evaluation report (the default output of `kernelpro eval`).
#pragma once

#include <string>

#include "eval/evaluator.h"

namespace kp {

std::string render_evaluation_text(const EvaluationReport& report);

}  // namespace kp
