#pragma once
/// Where a document's own declarations go (a `<meta charset>`, a Content-Security-Policy
/// `<meta>`), decided with the one tokenizer (html/tokenizer.hpp), so that a declaration is
/// in force before anything in the document can run or load: MHT-12.5 (received scripts do
/// not run unless asked for) depends on it.
///
/// HTML: a `<meta>` is honoured as a policy only in `<head>` (HTML §4.2.5.3: "if the meta
/// element is not a child of a head element, return"). The point chosen is before the first
/// token that is not white-space text, a comment, or a DOCTYPE that comes before every other
/// token (a UTF-8 byte order mark is no token); before a comment or DOCTYPE that the end of
/// the input cuts short (it holds the rest of the document). Only those can precede it, so nothing
/// executable does, and the tree builder puts a `<meta>` there into `<head>` (creating
/// `<html>` and `<head>` for it when they come later or not at all: their attributes are
/// then merged into the elements it made, and a page that is only text gets a head). The
/// document's mode does not change: a DOCTYPE stays first, and text that came before the
/// DOCTYPE already made the page quirky.
///
/// XML (an SVG or XHTML document read by an XML parser, e.g. a file or a frame): a policy
/// `<meta>` counts only inside a `<head>` element in the XHTML namespace, anywhere in the
/// document (Chromium honours one under an SVG root, tested in tests/browser). The point
/// chosen is just after the root element's start tag, where only the root's own attributes
/// come before it; event handler attributes there are compiled when their event first
/// fires, after the policy is in force (tested for `<svg onload>` in Chromium).

#include <cstddef>
#include <string>
#include <string_view>
#include "mhtml/export.hpp"

namespace mhtml::html {

/// The offset in an HTML document where its declarations go (see above).
MHTML_EXPORT std::size_t declaration_point(std::string_view html);

/// The root element's start tag of an XML document, as the tokenizer reads it in XML mode.
struct xml_root {
    bool found = false;         ///< false: no start tag at all (not a document a browser shows)
    std::size_t begin = 0;      ///< its '<'
    std::size_t end = 0;        ///< one past its '>'
    bool self_closing = false;  ///< `<svg …/>`: it must be opened to hold anything
    std::string_view name;      ///< the qualified name as written (for an end tag)
};
MHTML_EXPORT xml_root find_xml_root(std::string_view xml);

/// `<meta http-equiv="Content-Security-Policy" content="…">` for `policy` (which must not
/// contain '"', '&' or '<'); in XML syntax (`xml`) wrapped in an XHTML-namespace `<head>`.
MHTML_EXPORT std::string policy_meta(std::string_view policy, bool xml);

/// `html` with `declarations` (HTML markup) inserted at declaration_point().
MHTML_EXPORT std::string with_html_declarations(std::string_view html,
                                                std::string_view declarations);

/// `xml` with `declarations` (well-formed XML markup) inserted after the root's start tag
/// (a self-closing root is opened and closed around them). When the tokenizer finds no
/// root start tag, the declarations go first, before everything: for an XML parser the
/// document then has its root (the declarations) before whatever follows, and stops with a
/// well-formedness error at the first markup after it, so nothing the rest holds can run
/// (fail closed; the octets are all kept).
MHTML_EXPORT std::string with_xml_declarations(std::string_view xml, std::string_view declarations);

/// Turns every `<meta http-equiv="refresh">` of an HTML document into an inert
/// `<meta data-equiv="refresh">` (the attribute name changes in place, so every offset stays
/// valid) and returns how many there were. A refresh navigates without a script, so a
/// policy cannot stop it; Chromium's view of an archive never follows one (archives are
/// sandboxed, without "automatic features").
MHTML_EXPORT std::size_t disable_meta_refresh(std::string& html);

}  // namespace mhtml::html
