// Writing from scratch: for an imported task there is no kernel to start from, so the LLM writer
// (prompts/writer.md) gets the PyTorch source, the ABI, the tensors in kp_forward's order
// (parameters by state_dict name), the constants and the roofline floor, and writes the first
// version; the search goes on from it as from any starting kernel.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "llm/llm_agents.h"
#include "store/run_store.h"
#include "task/task_spec.h"

namespace kp::kernelbench {

// What the writer is told about the task (tensors text, floor text, the problem's source).
Result<llm::WriterInput> writer_input_for(const TaskSpec& task);

struct FirstVersion {
    llm::CandidateCode code;
    std::vector<llm::LlmExchange> exchanges;  // for the run store, once the run exists
};

Result<FirstVersion> write_first_version(llm::LlmAgents& agents, const TaskSpec& task);

// The writer's exchanges, stored with the run (node 0) once the run exists.
void record_writer_exchanges(store::RunStore& store, std::int64_t run_id, const std::vector<llm::LlmExchange>& exchanges);

// What the coder and fixer are told about an imported task on every later proposal: the writer's
// tensors and floor, and the PyTorch source (the definition of what to compute).
std::string describe_pytorch_task(const TaskSpec& task);

// The one line optimize and bench print for a task with no starting kernel and no writer.
std::string no_starting_kernel_message(const TaskSpec& task);

}  // namespace kp::kernelbench
