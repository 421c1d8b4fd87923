// `kernelpro report` of a recorded run, opened in headless Chromium (Debian's chromium, installed
// by scripts/setup): the rendered DOM has one tree node per run node, one chart point per
// evaluation, one roofline point per correct kernel and the best kernel's changed lines,
// highlighted; no request leaves the page (the page's policy blocks and records any, and
// Chromium's own network log shows none); a screenshot is written next to the test binary.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "common/files.h"
#include "common/process.h"
#include "recorded_run.h"
#include "report/run_report_model.h"
#include "search/candidate.h"
#include "store/run_store.h"

using namespace kp;

namespace {

std::optional<std::string> chromium() {
    if (const char* path = std::getenv("KP_CHROMIUM"); path && *path) return std::string(path);
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"})
        if (auto found = find_executable(name)) return found;
    return std::nullopt;
}

struct Browser {
    std::string dom, net_log;
};

// Loads a page the way a person would open the file, with every host name unresolvable as a
// second wall, and returns the DOM after its scripts ran plus Chromium's network log.
Browser open_in_chromium(const std::filesystem::path& page, const std::vector<std::string>& extra = {}) {
    auto net_log = page.string() + ".netlog.json";
    std::vector<std::string> argv = {*chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                     "--disable-background-networking", "--host-resolver-rules=MAP * ~NOTFOUND",
                                     "--log-net-log=" + net_log, "--virtual-time-budget=5000"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    if (extra.empty()) argv.push_back("--dump-dom");
    argv.push_back("file://" + page.string());
    ProcessOptions options;
    options.timeout = std::chrono::seconds(120);
    auto run = run_process(argv, options);
    EXPECT_TRUE(run.ok() && run->succeeded()) << (run.ok() ? run->describe_failure() + "\n" + run->stderr_text : run.error().message);
    auto log = read_text_file(net_log);
    return {run.ok() ? run->stdout_text : "", log.ok() ? *log : ""};
}

size_t count(const std::string& text, const std::string& pattern) {
    std::regex re(pattern);
    return static_cast<size_t>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

std::string strip_tags(const std::string& html) {
    std::string text = std::regex_replace(html, std::regex("<[^>]*>"), "");
    for (auto [from, to] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}})
        text = std::regex_replace(text, std::regex(from), to);
    return text;
}

// The code cell of every added row of the rendered diff, as text (string search: std::regex
// recurses per character and overflows the stack on a page this size).
std::vector<std::string> added_lines(const std::string& dom) {
    std::vector<std::string> lines;
    const std::string row = "<tr class=\"diff-add\">", cell = "class=\"kp-code";
    for (size_t at = dom.find(row); at != std::string::npos; at = dom.find(row, at + 1)) {
        size_t end = dom.find("</tr>", at);
        size_t code = dom.find(cell, at);
        if (end == std::string::npos || code == std::string::npos || code > end) continue;
        code = dom.find('>', code) + 1;
        size_t close = dom.rfind("</td>", end);
        lines.push_back(strip_tags(dom.substr(code, close - code)));
    }
    return lines;
}

// The URLs the page asked for, from Chromium's network log: requests started in the page's own
// network isolation context (file://). Chromium's background requests (component updates,
// dictionaries) carry other keys and are not the page's doing.
std::vector<std::string> page_request_urls(const std::string& net_log) {
    auto log = nlohmann::json::parse(net_log, nullptr, false);
    EXPECT_TRUE(log.is_object() && log.contains("events")) << "unreadable network log";
    if (!log.is_object() || !log.contains("events")) return {"(unreadable network log)"};
    int start_job = log["constants"]["logEventTypes"].value("URL_REQUEST_START_JOB", -1);
    std::vector<std::string> urls;
    for (const auto& event : log["events"]) {
        if (event.value("type", -2) != start_job || !event.contains("params")) continue;
        const auto& params = event["params"];
        std::string key = params.value("network_isolation_key", std::string());
        std::string url = params.value("url", std::string());
        if (key.rfind("file://", 0) == 0 && url.rfind("file:", 0) != 0) urls.push_back(url);
    }
    return urls;
}

class ReportInBrowser : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!chromium()) return;
        dir_ = std::filesystem::temp_directory_path() / ("kp_report_browser_" + std::to_string(getpid()));
        std::filesystem::create_directories(dir_);
        recorded_ = kp::report::testing::record_gelu_run(dir_ / "runs.db", 20);
        page_ = dir_ / "report.html";
        auto made = run_process({KP_KERNELPRO_BINARY, "report", std::to_string(recorded_.run_id), "--store",
                                 recorded_.store_path.string(), "--out", page_.string()});
        ASSERT_TRUE(made.ok() && made->succeeded()) << (made.ok() ? made->stderr_text : made.error().message);
        browser_ = open_in_chromium(page_);
    }
    static void TearDownTestSuite() {
        if (!dir_.empty()) std::filesystem::remove_all(dir_);
    }
    void SetUp() override {
        if (!chromium()) GTEST_SKIP() << "no chromium on PATH (Debian package chromium; scripts/setup installs it)";
    }
    static inline std::filesystem::path dir_, page_;
    static inline kp::report::testing::RecordedRun recorded_;
    static inline Browser browser_;
};

TEST_F(ReportInBrowser, TreeHasOneNodePerRunNode) {
    auto store = store::RunStore::open(recorded_.store_path);
    auto nodes = store->load_nodes(recorded_.run_id);
    ASSERT_GT(nodes->size(), 5u);
    EXPECT_EQ(count(browser_.dom, "<circle[^>]*class=\"kp-tree-node[^\"]*\""), nodes->size());
}

TEST_F(ReportInBrowser, ChartsHaveOnePointPerEvaluationAndPerCorrectKernel) {
    auto store = store::RunStore::open(recorded_.store_path);
    auto evaluations = store->load_evaluations(recorded_.run_id);
    size_t correct = 0;
    for (const auto& e : *evaluations) correct += e.status_class == "ok" && e.median_seconds ? 1 : 0;
    EXPECT_EQ(count(browser_.dom, "<path[^>]*class=\"eval-point[^\"]*\""), evaluations->size());
    EXPECT_EQ(count(browser_.dom, "<circle[^>]*class=\"roofline-point[^\"]*\""), correct);
    EXPECT_EQ(count(browser_.dom, "class=\"roofline-floor\""), 1u);
    EXPECT_EQ(count(browser_.dom, "<path[^>]*class=\"energy-point[^\"]*\""), evaluations->size()) << "the energy chart, measured runs only";
    EXPECT_GT(evaluations->size(), correct) << "the recorded run has failed evaluations too";
}

TEST_F(ReportInBrowser, DiffShowsTheBestKernelsNewLinesHighlighted) {
    auto store = store::RunStore::open(recorded_.store_path);
    auto model = report::run_report_model(*store, recorded_.run_id);
    ASSERT_TRUE(model.ok() && model->contains("best"));
    auto nodes = *store->load_nodes(recorded_.run_id);
    auto best_id = (*model)["best"]["node"].get<std::int64_t>();
    auto params = [](const store::NodeRecord& n) { return search::params_from_json(n.params_json).value(); };
    std::string start = report::source_with_parameters(nodes[0].source, params(nodes[0]));
    std::string best = report::source_with_parameters(nodes[static_cast<size_t>(best_id)].source, params(nodes[static_cast<size_t>(best_id)]));
    std::set<std::string> start_lines, shown;
    std::istringstream a(start), b(best);
    for (std::string l; std::getline(a, l);) start_lines.insert(l);
    for (const auto& l : added_lines(browser_.dom)) shown.insert(l);
    size_t new_lines = 0;
    for (std::string l; std::getline(b, l);)
        if (!start_lines.count(l)) {
            ++new_lines;
            EXPECT_TRUE(shown.count(l)) << "best kernel line missing from the diff: " << l;
        }
    EXPECT_GT(new_lines, 3u);
    auto diff_at = browser_.dom.find("<table id=\"kp-diff\"");
    ASSERT_NE(diff_at, std::string::npos);
    EXPECT_NE(browser_.dom.find("class=\"hljs-", diff_at), std::string::npos) << "syntax highlighting ran";
}

TEST_F(ReportInBrowser, NoRequestLeavesThePage) {
    EXPECT_EQ(browser_.dom.find("data-blocked-requests"), std::string::npos) << "the page tried a request";
    EXPECT_FALSE(browser_.net_log.empty()) << "Chromium wrote no network log";
    EXPECT_EQ(page_request_urls(browser_.net_log), std::vector<std::string>{});
}

// The two walls work: a request injected into the report is blocked and recorded by the page's
// policy; without the policy the network log shows the attempt.
TEST_F(ReportInBrowser, InjectedRequestsAreCaught) {
    std::string html = *read_text_file(page_);
    std::string img = "<img src=\"http://192.0.2.1/kp-probe.png\">";
    std::string injected = html;
    injected.insert(injected.find("<main"), img);
    ASSERT_TRUE(write_file_atomically(dir_ / "injected.html", injected).ok());
    auto blocked = open_in_chromium(dir_ / "injected.html");
    EXPECT_NE(blocked.dom.find("data-blocked-requests=\"http://192.0.2.1/kp-probe.png\""), std::string::npos);
    std::string open = std::regex_replace(injected, std::regex("<meta http-equiv=\"Content-Security-Policy\"[^>]*>"), "");
    ASSERT_TRUE(write_file_atomically(dir_ / "open.html", open).ok());
    auto leaked = open_in_chromium(dir_ / "open.html");
    EXPECT_EQ(page_request_urls(leaked.net_log), std::vector<std::string>{"http://192.0.2.1/kp-probe.png"});
}

TEST_F(ReportInBrowser, Screenshot) {
    auto shot = std::filesystem::path(KP_REPORT_TEST_OUT) / "report-screenshot.png";
    std::filesystem::remove(shot);
    open_in_chromium(page_, {"--hide-scrollbars", "--window-size=1400,2400", "--screenshot=" + shot.string()});
    ASSERT_TRUE(std::filesystem::exists(shot));
    EXPECT_GT(std::filesystem::file_size(shot), 20000u);
    std::ifstream in(shot, std::ios::binary);
    char magic[8] = {};
    in.read(magic, 8);
    EXPECT_EQ(std::string(magic + 1, 3), "PNG");
}

TEST_F(ReportInBrowser, CommandLineErrorsHaveTheirExitCodes) {
    auto code = [](std::vector<std::string> args) {
        args.insert(args.begin(), KP_KERNELPRO_BINARY);
        auto run = run_process(args);
        return run.ok() ? run->exit_code : -1;
    };
    EXPECT_EQ(code({"report", "999", "--store", recorded_.store_path.string()}), 2);
    EXPECT_EQ(code({"report", "1", "--store", (dir_ / "missing.db").string()}), 3);
    EXPECT_EQ(code({"report", "not-a-run"}), 2);
    EXPECT_EQ(code({"report", dir_.string()}), 2) << "a folder without results.json";
}

}  // namespace
