// Fixture for tests/check_keyed_hash.py (never compiled): the checker must report exactly
// the 6 marked violations and nothing else here.
#include <string>
#include <unordered_map>
#include <unordered_set>

std::unordered_map<std::string, int> a;  // violation 1
std::unordered_set<  // violation 2 (over three lines)
    std::string_view>
    b;
std::unordered_map<std::string, int, std::hash<std::string>> c;  // violations 3 and 4
struct by_name {
    std::size_t operator()(std::string_view s) const {
        return std::hash<std::string_view>{}(s);  // violation 5
    }
};
std::unordered_multimap<const char*, int> d;  // violation 6 (hashes the address, not the text)

// Not violations:
std::unordered_map<std::uint32_t, std::string> by_index;
mhtml::detail::keyed_string_map<int> keyed;
std::unordered_map<std::string, std::vector<std::pair<int, int>>, mhtml::detail::keyed_hash,
                   std::equal_to<>>
    keyed_spelled_out;
// std::unordered_map<std::string, int> in a comment
/* std::unordered_set<std::string> in a block comment */
const char* text = "std::unordered_map<std::string, int> in a string";
