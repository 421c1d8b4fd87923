// A task whose reference lives elsewhere (precomputed safetensors sets, as from PyTorch): honest
// candidates pass against the stored outputs, wrong ones fail. Needs a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>

#include "common/files.h"
#include "eval_fixture.h"
#include "task/safetensors.h"

using namespace kp;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kElements = 1 << 22;

HostTensor f32_tensor(const std::vector<float>& values) {
    HostTensor t{DType::F32, {static_cast<int64_t>(values.size())}, std::vector<uint8_t>(values.size() * 4)};
    std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    return t;
}

// y = 3x + 1, computed here on the CPU in double and stored as the reference.
fs::path write_data_task() {
    fs::path dir = make_temp_directory("kp-data-task").value();
    fs::create_directories(dir / "data");
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.f, 2.f);
    for (int set = 0; set < 2; ++set) {
        std::vector<float> x(kElements), y(kElements);
        for (int64_t i = 0; i < kElements; ++i) {
            x[i] = normal(rng);
            y[i] = static_cast<float>(3.0 * x[i] + 1.0);
        }
        TensorSet tensors{{"x", f32_tensor(x)}, {"y", f32_tensor(y)}};
        EXPECT_TRUE(write_safetensors(dir / "data" / ("set_00" + std::to_string(set) + ".safetensors"), tensors).ok());
    }
    std::ofstream(dir / "task.toml") << "name = \"affine_data\"\n"
                                        "[[input]]\nname = \"x\"\ndtype = \"f32\"\nshape = [" << kElements << "]\n"
                                        "[[output]]\nname = \"y\"\ndtype = \"f32\"\nshape = [" << kElements << "]\n"
                                        "[cost]\nflops = " << 2 * kElements << "\n"
                                        "[reference]\ndata = \"data\"\n";
    auto kernel = [](const char* expression) {
        return std::string("#include \"kernelpro/abi.h\"\n__global__ void k(const float* x, float* y, long n) {\n"
                           "  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;\n  if (i < n) y[i] = ") +
               expression + ";\n}\nKP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t s) {\n"
               "  long n = in[0].shape[0];\n  k<<<(n + 255) / 256, 256, 0, s>>>((const float*)in[0].data, (float*)out[0].data, n);\n"
               "  return 0;\n}\n";
    };
    std::ofstream(dir / "honest.cu") << kernel("3.0f * x[i] + 1.0f");
    std::ofstream(dir / "wrong.cu") << kernel("3.0f * x[i]");
    return dir;
}

}  // namespace

TEST(DataReference, StoredOutputsJudgeTheCandidate) {
    KP_SKIP_WITHOUT_GPU();
    fs::path dir = write_data_task();
    auto task = load_task(dir);
    ASSERT_TRUE(task.ok()) << task.error().message;
    ASSERT_TRUE(task->reference.data_dir.has_value());
    BuilderOptions build_options;
    build_options.arch = detect_gpu_arch();
    CandidateBuilder builder(build_options);
    Evaluator evaluator(builder, kp::testing::test_worker_options());
    auto options = kp::testing::quick_evaluation_options();
    auto honest = evaluator.evaluate(*task, dir / "honest.cu", options);
    ASSERT_TRUE(honest.ok()) << honest.error().message;
    EXPECT_EQ(honest->status, FailureClass::Ok) << honest->message;
    EXPECT_TRUE(honest->candidate_median_seconds().has_value());
    auto wrong = evaluator.evaluate(*task, dir / "wrong.cu", options);
    ASSERT_TRUE(wrong.ok()) << wrong.error().message;
    EXPECT_EQ(wrong->status, FailureClass::Incorrect) << wrong->message;
}
