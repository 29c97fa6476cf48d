// JSON in and out: base/json_text.h (valid UTF-8 out, original bytes kept) and base/json_reader.h
// (typed reading with errors that name the file and the field).
#include <gtest/gtest.h>

#include <random>

#include "base/json_reader.h"
#include "base/json_text.h"
#include "base/utf8.h"

namespace cudnnup {
namespace {

using nlohmann::json;

TEST(JsonText, InvalidUtf8IsReplacedAndItsBytesKept) {
  json doc = {{"path", std::string("/opt/caf\xe9/lib")}, {"ok", "caf\xc3\xa9"},
              {"list", {std::string("a"), std::string("b\xff")}}};
  std::string out = dump_json(doc);
  EXPECT_TRUE(valid_utf8(out)) << out;
  json back = json::parse(out);
  EXPECT_EQ(back["path"], "/opt/caf\xef\xbf\xbd/lib");
  EXPECT_EQ(back["path_bytes"], hex_bytes("/opt/caf\xe9/lib"));
  EXPECT_EQ(back["ok"], "caf\xc3\xa9") << "valid UTF-8 is left alone";
  EXPECT_FALSE(back.contains("ok_bytes"));
  EXPECT_EQ(back["list_bytes"], json({nullptr, hex_bytes("b\xff")}));
}

TEST(JsonText, KeysToo) {
  json doc = json::object();
  doc[std::string("d\xfe")] = 1;
  json back = json::parse(dump_json(doc, 2));
  EXPECT_EQ(back["d\xef\xbf\xbd"], 1);
  EXPECT_EQ(back["d\xef\xbf\xbd_key_bytes"], "64fe");
}

TEST(JsonText, ValidDocumentsDumpAsBefore) {
  json doc = {{"a", "x — y"}, {"b", {1, 2}}, {"c", "\x1b[31m"}};
  EXPECT_EQ(dump_json(doc, 2), doc.dump(2));
}

// dump_json writes valid documents itself (nlohmann's dump is slow): the same bytes as
// nlohmann's dump, on generated documents of every value type, with strings full of what needs
// escaping (quotes, backslashes, every C0 control, DEL, multi-byte UTF-8), floats, empty and
// nested containers, for one-line and indented output, ordered and plain.
template <typename Json>
Json generated(std::mt19937& rng, int depth) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto text = [&] {
    static const std::vector<std::string> pieces = {"a", "Z", " ", "\"", "\\", "/", "\x7f", "\xc3\xa9", "\xe2\x82\xac",
                                                    "\xf0\x9f\x98\x80", "\u2028", "x y", "lib/libcudnn.so.9"};
    std::string s;
    for (int n = pick(8); n > 0; --n) {
      if (pick(3) == 0) s += static_cast<char>(pick(0x20));
      else s += pieces[static_cast<size_t>(pick(static_cast<int>(pieces.size())))];
    }
    return s;
  };
  switch (depth > 3 ? pick(6) : pick(8)) {
    case 0: return Json(nullptr);
    case 1: return Json(pick(2) == 1);
    case 2: return Json(static_cast<int64_t>(rng()) - (1LL << 31) * pick(3));
    case 3: return Json(static_cast<uint64_t>(rng()) << pick(32));
    case 4: return Json(static_cast<double>(static_cast<int>(rng() % 100000)) / (1 + pick(1000)));
    case 5: return Json(text());
    case 6: {
      Json a = Json::array();
      for (int n = pick(5); n > 0; --n) a.push_back(generated<Json>(rng, depth + 1));
      return a;
    }
    default: {
      Json o = Json::object();
      for (int n = pick(5); n > 0; --n) o[text()] = generated<Json>(rng, depth + 1);
      return o;
    }
  }
}

TEST(JsonText, TheWriterWritesWhatNlohmannWrites) {
  std::mt19937 rng(424242);
  for (int i = 0; i < 3000; ++i) {
    auto plain = generated<nlohmann::json>(rng, 0);
    auto ordered = generated<nlohmann::ordered_json>(rng, 0);
    for (int indent : {-1, 0, 2, 4}) {
      ASSERT_EQ(dump_json(plain, indent), plain.dump(indent)) << "indent " << indent;
      ASSERT_EQ(dump_json(ordered, indent), ordered.dump(indent)) << "indent " << indent;
    }
  }
}

TEST(JsonText, Utf8Rules) {
  EXPECT_TRUE(valid_utf8("plain, caf\xc3\xa9, \xe2\x82\xac, \xf0\x9f\x98\x80"));
  for (const char* bad : {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\x80"}) EXPECT_FALSE(valid_utf8(bad)) << bad;
  EXPECT_EQ(utf8_replaced("a\xffz"), "a\xef\xbf\xbdz");
  EXPECT_EQ(bytes_from_hex("6162ff"), std::string("ab\xff"));
  EXPECT_FALSE(bytes_from_hex("6g"));
}

// The child protocol's round trip (core/child/protocol.cc, app/child/child_request.cc): what
// dump_json wrote comes back byte for byte, nested members and arrays included.
TEST(JsonText, RestoreBytesUndoesTheEscape) {
  const std::string odd = "/opt/caf\xe9/lib", odd2 = "/x/\xff\xfe.so";
  json doc = {{"library", odd},
              {"event", "modules"},
              {"files", {std::string("/ok/a.so"), odd2, std::string("/ok/b.so")}},
              {"result", {{"path", odd}, {"n", 3}}}};
  json back = restore_bytes(json::parse(dump_json(doc)));
  EXPECT_EQ(back, doc) << back.dump();
  // Valid documents pass unchanged; a "_bytes" member that does not decode is left alone.
  json plain = {{"a", "b"}, {"list", {1, 2}}};
  EXPECT_EQ(restore_bytes(plain), plain);
  json odd_member = {{"name", "x"}, {"name_bytes", "zz"}, {"list", {"a"}}, {"list_bytes", {"61", "62"}}};
  EXPECT_EQ(restore_bytes(odd_member), odd_member);
}

TEST(JsonReader, TypeErrorsNameTheFileAndTheField) {
  JsonReader r("/tmp/rules.json");
  JsonValue doc = r.parse_object(R"({"schema": "1", "rows": [{"n": 1}, {"n": "two"}]})");
  EXPECT_EQ(doc.integer("schema", 0, 0, 10), 0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().error().message, "/tmp/rules.json: field 'schema' must be an integer, not a string");
  EXPECT_EQ(r.status().error().path, "/tmp/rules.json");

  JsonReader r2("f.json");
  JsonValue d2 = r2.parse_object(R"({"rows": [{"n": 1}, {"n": "two"}]})");
  for (const auto& row : d2.array("rows")) (void)row.integer("n", 0, 0, 10);
  EXPECT_EQ(r2.status().error().message, "f.json: field 'rows[1].n' must be an integer, not a string");
}

TEST(JsonReader, RangesMissingFieldsAndNonObjects) {
  JsonReader big("s.json");
  JsonValue b = big.parse_object(R"({"seq": 99999999999999999999})");
  (void)b.integer("seq", 0, 0, 1000);
  EXPECT_FALSE(big.ok());
  JsonReader missing("m.json");
  (void)missing.parse_object("{}").required_string("id");
  EXPECT_EQ(missing.status().error().message, "m.json: field 'id' is missing");
  JsonReader list("l.json");
  (void)list.parse_object("[1, 2]");
  EXPECT_EQ(list.status().error().message, "l.json is not a JSON object (it is an array)");
  JsonReader junk("j.json");
  (void)junk.parse_object("{not json");
  EXPECT_EQ(junk.status().error().message, "j.json is not valid JSON");
}

TEST(JsonReader, ReadsTheOriginalBytesBack) {
  json doc = {{"path", std::string("/srv/\xff\xfe/store")}, {"dirs", {std::string("ok"), std::string("\x80")}}};
  JsonReader r("state.json");
  JsonValue v = r.parse_object(dump_json(doc));
  EXPECT_EQ(v.string("path"), "/srv/\xff\xfe/store");
  EXPECT_EQ(v.strings("dirs"), (std::vector<std::string>{"ok", "\x80"}));
  EXPECT_TRUE(r.ok());
}

TEST(JsonReader, TopLevelStringAgreesWithAFullParse) {
  // Generated objects where "k" is absent, a string, another type, or only nested deeper.
  std::mt19937 rng(7);
  int strings_found = 0;
  for (int i = 0; i < 3000; ++i) {
    json doc = json::object();
    for (int n = static_cast<int>(rng() % 4); n > 0; --n) doc["x" + std::to_string(n)] = generated<json>(rng, 1);
    switch (rng() % 4) {
      case 0: break;
      case 1: doc["k"] = generated<json>(rng, 1); break;
      case 2: doc["k"] = "value " + std::to_string(i); break;
      default: doc["nested"] = json{{"k", "deeper"}, {"more", generated<json>(rng, 2)}};
    }
    std::string want = doc.contains("k") && doc["k"].is_string() ? doc["k"].get<std::string>() : "";
    strings_found += !want.empty();
    for (int indent : {-1, 2}) ASSERT_EQ(top_level_string(doc.dump(indent), "k"), want) << doc.dump();
  }
  EXPECT_GT(strings_found, 500);
}

TEST(JsonReader, TopLevelStringOnBadInput) {
  EXPECT_EQ(top_level_string(R"({"schema": 1, "data_version": "2026-12-02", "rest": [)", "data_version"), "2026-12-02");
  EXPECT_EQ(top_level_string(R"({"schema": 1, )", "data_version"), "");
  EXPECT_EQ(top_level_string("", "data_version"), "");
  EXPECT_EQ(top_level_string(R"(["data_version", "x"])", "data_version"), "");
  EXPECT_EQ(top_level_string(R"({"data_version": {"data_version": "x"}})", "data_version"), "");
  EXPECT_EQ(top_level_string("\xff\xfe{", "data_version"), "");
}

}  // namespace
}  // namespace cudnnup
