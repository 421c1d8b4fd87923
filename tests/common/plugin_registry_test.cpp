// The registry every plug-in kind uses: lookup by name or alias, sorted listings, one error for
// an unknown name, and a refused second registration of a name.
#include <gtest/gtest.h>

#include "common/plugin_registry.h"

namespace {

struct Shape {
    std::string name;
    std::vector<std::string> aliases;
    int sides = 0;
};

struct Plain {
    std::string name;
};

kp::PluginRegistry<Shape> shapes() {
    kp::PluginRegistry<Shape> registry("shape");
    registry.add({"square", {"quad"}, 4});
    registry.add({"hexagon", {}, 6});
    registry.add({"triangle", {"tri", "trigon"}, 3});
    return registry;
}

}  // namespace

TEST(PluginRegistry, FindsByNameOrAliasAndListsNamesSorted) {
    auto registry = shapes();
    ASSERT_NE(registry.find("tri"), nullptr);
    EXPECT_EQ(registry.find("tri")->name, "triangle");
    EXPECT_EQ(registry.find("square")->sides, 4);
    EXPECT_EQ(registry.find("quad")->sides, 4);
    EXPECT_EQ(registry.find("circle"), nullptr);
    EXPECT_EQ(registry.names(), (std::vector<std::string>{"hexagon", "square", "triangle"}));
    EXPECT_EQ(registry.entries().size(), 3u);
    EXPECT_EQ(registry.entries().front()->name, "hexagon");
}

TEST(PluginRegistry, AnUnknownNameIsOneErrorListingTheRegisteredOnes) {
    auto found = shapes().lookup("circle");
    ASSERT_FALSE(found);
    EXPECT_EQ(found.error().message, "unknown shape 'circle' (registered: hexagon, square, triangle; aliases: quad, tri, trigon)");
    EXPECT_EQ((*shapes().lookup("trigon"))->sides, 3);
}

TEST(PluginRegistry, ANameOrAliasTakenTwiceIsAProgrammingError) {
    auto registry = shapes();
    EXPECT_THROW(registry.add({"square", {}, 5}), std::logic_error);
    EXPECT_THROW(registry.add({"pentagon", {"tri"}, 5}), std::logic_error);
    EXPECT_THROW(registry.add({"", {}, 0}), std::logic_error);
    EXPECT_EQ(registry.names().size(), 3u);  // nothing of a refused entry stays behind

    kp::PluginRegistry<Plain> plain("plain");  // entries without aliases work the same
    plain.add({"one"});
    EXPECT_THROW(plain.add({"one"}), std::logic_error);
    EXPECT_EQ(plain.joined_names(" | "), "one");
    EXPECT_EQ(plain.lookup("two").error().message, "unknown plain 'two' (registered: one)");
}
