#include <gtest/gtest.h>

#include <cstdlib>

#include "sandbox/filesystem_policy.h"
#include "sandbox/sandbox_report.h"
#include "sandbox/sandbox_settings.h"

using namespace kp::sandbox;

TEST(SandboxSettings, RoundTripAndDisabledLayers) {
    SandboxSettings s;
    s.disabled = {"landlock"};
    s.required = true;
    s.scratch = "/tmp/x";
    s.read_paths = {"/opt/venv"};
    s.max_file_bytes = 1 << 20;
    auto back = sandbox_settings_from_json(to_json(s));
    EXPECT_TRUE(back.required);
    EXPECT_TRUE(back.is_disabled("landlock"));
    EXPECT_FALSE(back.is_disabled("seccomp"));
    EXPECT_EQ(back.scratch, "/tmp/x");
    EXPECT_EQ(back.read_paths, s.read_paths);
    EXPECT_EQ(back.max_file_bytes, 1 << 20);
    back.disabled = {"all"};
    for (const auto& layer : layer_names()) EXPECT_TRUE(back.is_disabled(layer)) << layer;
    EXPECT_FALSE(sandbox_settings_from_json("not an object").required);
}

TEST(SandboxSettings, EnvironmentListKeepsEveryName) {
    ::setenv("KERNELPRO_SANDBOX_DISABLE", " landlock, seccomp ,typo", 1);
    EXPECT_EQ(disabled_layers_from_environment(), (std::vector<std::string>{"landlock", "seccomp", "typo"}));
    ::unsetenv("KERNELPRO_SANDBOX_DISABLE");
    EXPECT_TRUE(disabled_layers_from_environment().empty());
}

TEST(SandboxReport, SummaryNamesWhatIsMissingAndWhy) {
    SandboxReport r;
    r.set({"namespaces", LayerState::unavailable, "unshare: Operation not permitted"});
    r.set({"seccomp", LayerState::active, "140 rules"});
    r.set({"landlock", LayerState::disabled, "disabled by KERNELPRO_SANDBOX_DISABLE"});
    EXPECT_FALSE(r.complete());
    EXPECT_EQ(r.summary(), "seccomp; missing: namespaces (unavailable: unshare: Operation not permitted); "
                           "landlock (disabled: disabled by KERNELPRO_SANDBOX_DISABLE)");
    r.set({"namespaces", LayerState::active, "pid"});
    r.set({"landlock", LayerState::active, "ABI 7"});
    EXPECT_TRUE(r.complete());
    EXPECT_EQ(r.summary(), "namespaces, seccomp, landlock");
    auto back = SandboxReport::from_json(r.to_json());
    ASSERT_EQ(back.layers.size(), 3u);
    EXPECT_TRUE(back.complete());
    EXPECT_EQ(back.find("landlock")->detail, "ABI 7");
    EXPECT_FALSE(SandboxReport{}.complete());
    EXPECT_EQ(SandboxReport::from_json(nullptr).summary(), "not reported");
}

TEST(FilesystemPolicy, ReadWriteAndDevices) {
    FilesystemPolicy p;
    p.read_only = {"/usr", "/etc/ld.so.cache", "/proc"};
    p.read_write = {"/tmp/scratch"};
    p.devices = {"/dev/nvidia0", "/dev/null"};
    EXPECT_TRUE(p.may_read("/usr/lib/libc.so.6"));
    EXPECT_TRUE(p.may_read("/etc/ld.so.cache"));
    EXPECT_FALSE(p.may_read("/etc/passwd"));
    EXPECT_FALSE(p.may_read("/usrlocal/x"));  // a prefix of the name is not a folder
    EXPECT_FALSE(p.may_write("/usr/lib/x"));
    EXPECT_TRUE(p.may_write("/tmp/scratch/a/b"));
    EXPECT_TRUE(p.may_write("/tmp/scratch"));
    EXPECT_FALSE(p.may_write("/tmp/scratch2"));
    EXPECT_TRUE(p.may_write("/dev/nvidia0"));
    EXPECT_FALSE(p.may_read("/dev/sda"));
    auto back = FilesystemPolicy::from_json(p.to_json());
    EXPECT_EQ(back.read_only, p.read_only);
    EXPECT_EQ(back.devices, p.devices);
}

TEST(FilesystemPolicy, LexicalNormalization) {
    EXPECT_EQ(normalize_lexically("/a/./b/../c//d/"), "/a/c/d");
    EXPECT_EQ(normalize_lexically("/../.."), "/");
    EXPECT_EQ(normalize_lexically("/proc/self/../1/mem"), "/proc/1/mem");
    EXPECT_TRUE(path_is_within("/x", "/"));
    EXPECT_FALSE(path_is_within("", "/"));
}
