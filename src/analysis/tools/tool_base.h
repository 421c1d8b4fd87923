// Boilerplate shared by the built-in tools: name, classes, needs and threshold held as data.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "analysis/micro_tool.h"

namespace kp::analysis {

class DescribedTool : public MicroTool {
public:
    DescribedTool(std::string name, std::vector<RooflineClass> classes, DataNeeds needs, std::string threshold)
        : name_(std::move(name)), classes_(std::move(classes)), needs_(std::move(needs)), threshold_(std::move(threshold)) {}
    std::string_view name() const override { return name_; }
    std::vector<RooflineClass> classes() const override { return classes_; }
    DataNeeds needs() const override { return needs_; }
    std::string_view threshold() const override { return threshold_; }

private:
    std::string name_;
    std::vector<RooflineClass> classes_;
    DataNeeds needs_;
    std::string threshold_;
};

inline std::vector<RooflineClass> every_class() { return all_roofline_classes(); }
inline double clamp01(double v) { return std::clamp(v, 0.0, 1.0); }

}  // namespace kp::analysis
