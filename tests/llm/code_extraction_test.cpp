#include <gtest/gtest.h>

#include "llm/code_extraction.h"
#include "llm/diagnostics_trim.h"
#include "scripted_server.h"

using namespace kp::llm;
using kp::llm::testing::fixture;

namespace {

const char* kKernel = "#include <kernelpro/abi.h>\nKP_EXPORT int kp_forward(const kp_tensor* i, int ni, kp_tensor* o, int no, cudaStream_t s) {\n    return 0;\n}\n";

TEST(CodeExtraction, RecordedCoderReply) {
    auto kernel = extract_kernel_source(fixture("coder_reply_text.md"));
    ASSERT_TRUE(kernel.ok()) << kernel.error().message;
    EXPECT_EQ(kernel->language, "cuda");
    EXPECT_EQ(kernel->source.rfind("#include <kernelpro/abi.h>", 0), 0u);
    EXPECT_EQ(brace_balance(kernel->source), 0);
    auto tunables = parse_tunables(kernel->source);
    ASSERT_TRUE(tunables.ok()) << tunables.error().message;
    ASSERT_EQ(tunables->size(), 1u);
    EXPECT_EQ((*tunables)[0].name, "BLOCK");
    EXPECT_EQ((*tunables)[0].values, (std::vector<std::string>{"128", "256", "512"}));
}

TEST(CodeExtraction, EveryFenceLabel) {
    for (const char* label : {"cuda", "cpp", "c++", "CUDA", "", "cu title=kernel.cu"}) {
        const std::string reply = std::string("Here:\n```") + label + "\n" + kKernel + "```\nDone.";
        auto kernel = extract_kernel_source(reply);
        ASSERT_TRUE(kernel.ok()) << label << ": " << kernel.error().message;
        EXPECT_EQ(kernel->source, kKernel) << label;
    }
    auto tilde = extract_kernel_source(std::string("~~~cuda\n") + kKernel + "~~~\n");
    ASSERT_TRUE(tilde.ok());
    EXPECT_EQ(tilde->source, kKernel);
    // Indented fences (inside a list) and CRLF line ends.
    auto indented = extract_kernel_source(std::string("1. The kernel:\n   ```cuda\r\n") + kKernel + "   ```\r\n");
    ASSERT_TRUE(indented.ok()) << indented.error().message;
}

TEST(CodeExtraction, PicksTheBiggestBlockWithKpForward) {
    const std::string snippet = "```cuda\nkp_forward(...); // the call site\n```\n";
    const std::string helper = "```python\nprint('no kernel here, but a much longer block ..........................')\n```\n";
    auto kernel = extract_kernel_source("Before:\n" + snippet + helper + "Full file:\n```cuda\n" + kKernel + "```\n" +
                                        "And the diff:\n" + snippet);
    ASSERT_TRUE(kernel.ok());
    EXPECT_EQ(kernel->source, kKernel);
    // Equal sizes: the last one wins.
    std::string second = kKernel;
    second[second.find("0;")] = '1';
    auto last = extract_kernel_source(std::string("```cuda\n") + kKernel + "```\n```cuda\n" + second + "```\n");
    ASSERT_TRUE(last.ok());
    EXPECT_EQ(last->source, second);
}

TEST(CodeExtraction, MissingClosingFenceIsToleratedWhenComplete) {
    auto kernel = extract_kernel_source(std::string("```cuda\n") + kKernel);
    ASSERT_TRUE(kernel.ok()) << kernel.error().message;
    EXPECT_EQ(kernel->source, kKernel);
}

TEST(CodeExtraction, MalformedRepliesAreErrorValues) {
    auto expect_error = [](const std::string& reply, const char* words, bool token_limit = false) {
        auto r = extract_kernel_source(reply, token_limit);
        ASSERT_FALSE(r.ok()) << reply;
        EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().message;
    };
    expect_error("I would use shared memory for the reduction.", "no code block");
    expect_error("", "no code block");
    expect_error("```python\nimport torch\n```\n", "none defines kp_forward");
    const std::string truncated = fixture("coder_reply_text.md").substr(0, fixture("coder_reply_text.md").find("const float inv"));
    expect_error(truncated, "was cut off inside the code block opened at line 3, before kp_forward");
    expect_error(truncated, "hit the output token limit inside", true);
    const std::string no_end = fixture("coder_reply_text.md").substr(0, fixture("coder_reply_text.md").rfind("return cudaGetLastError"));
    expect_error(no_end, "is cut off: no closing fence and 1 unclosed brace");
    expect_error(std::string("```cuda\n") + kKernel, "hit the output token limit", true);
    expect_error("```cuda\n```\n", "none defines kp_forward");
    expect_error(std::string("#include <kernelpro/abi.h>\nint kp_forward() {\n"), "cut off");
}

TEST(CodeExtraction, BareCodeWithoutFences) {
    auto kernel = extract_kernel_source(std::string("\n") + kKernel + "\n");
    ASSERT_TRUE(kernel.ok()) << kernel.error().message;
    EXPECT_FALSE(kernel->fenced);
    EXPECT_EQ(kernel->source, kKernel);
}

TEST(CodeExtraction, BraceBalanceIgnoresCommentsAndLiterals) {
    EXPECT_EQ(brace_balance("int f() { return '{'; } // {\n/* { { */ const char* s = \"}}\\\"{\";"), 0);
    EXPECT_EQ(brace_balance("void g() { if (x) {"), 2);
}

TEST(Tunables, ParsedAndValidated) {
    auto ok = parse_tunables("// kp:tune BLOCK=128, 256\n  //kp:tune VEC=1,2,4\nint x; // kp:tune is mentioned here\n");
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    ASSERT_EQ(ok->size(), 2u);
    EXPECT_EQ((*ok)[1].name, "VEC");
    EXPECT_EQ((*ok)[1].line, 2);
    auto expect_error = [](const char* source, const char* words) {
        auto r = parse_tunables(source);
        ASSERT_FALSE(r.ok()) << source;
        EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().message;
    };
    expect_error("// kp:tune BLOCK\n", "no '='");
    expect_error("// kp:tune 2BLOCK=1\n", "identifier");
    expect_error("// kp:tune BLOCK=\n", "no values");
    expect_error("// kp:tune BLOCK=1,,2\n", "bad value ''");
    expect_error("// kp:tune A=1\n// kp:tune A=2\n", "line 2: '// kp:tune A=2': declared twice");
    expect_error("// kp:tune A=1 2\n", "bad value '1 2'");
}

TEST(Prose, OutsideCodeBlocks) {
    EXPECT_EQ(prose_outside_code_blocks("Intro.\n```cuda\nint x;\n```\nOutro.\n"), "Intro.\nOutro.");
}

TEST(JsonExtraction, FencedOrInline) {
    auto fenced = extract_json_object("Reasoning...\n```json\n{\"plan\": \"p\", \"steps\": [\"a\"]}\n```\n");
    ASSERT_TRUE(fenced.ok());
    EXPECT_EQ((*fenced)["plan"], "p");
    auto inline_json = extract_json_object("So: {\"plan\": \"q\", \"nested\": {\"k\": 1}} done");
    ASSERT_TRUE(inline_json.ok());
    EXPECT_EQ((*inline_json)["plan"], "q");
    EXPECT_FALSE(extract_json_object("no json { here").ok());
}

TEST(Diagnostics, PathsStrippedRepeatsDroppedErrorsKept) {
    EXPECT_EQ(strip_directories("/tmp/kp-build-x1/candidate.cu(42): error: x; see /usr/include/a.h:3"),
              "candidate.cu(42): error: x; see a.h:3");
    EXPECT_EQ(strip_directories("ratio 3/4 at a/b"), "ratio 3/4 at a/b");

    std::string log;
    for (int i = 0; i < 200; ++i) log += "/tmp/kp-9/candidate.cu(" + std::to_string(i) + "): warning: unused\n";
    log += "/tmp/kp-9/candidate.cu(300): error: identifier \"BLOKC\" is undefined\n";
    for (int i = 0; i < 50; ++i) log += "note: same note\n";
    log += "1 error detected in the compilation of \"/tmp/kp-9/candidate.cu\".\n";
    const std::string trimmed = trim_diagnostics(log, {10, 6000, 2});
    EXPECT_NE(trimmed.find("candidate.cu(300): error: identifier \"BLOKC\" is undefined"), std::string::npos) << trimmed;
    EXPECT_NE(trimmed.find("1 error detected"), std::string::npos) << trimmed;
    EXPECT_EQ(trimmed.find("/tmp/"), std::string::npos);
    EXPECT_NE(trimmed.find("more lines omitted"), std::string::npos);
    EXPECT_LT(trimmed.size(), 600u);

    const std::string short_log = "a\nb\nb\nc\n";
    EXPECT_EQ(trim_diagnostics(short_log), "a\nb\nc\n");
    EXPECT_LE(trim_diagnostics(std::string(10000, 'e') + "\nerror\n", {60, 100, 3}).size(), 140u);
}

}  // namespace
