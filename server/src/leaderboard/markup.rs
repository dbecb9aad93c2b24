//! Escaping and Markdown for everything the leaderboards put into HTML, a leaf of the pages:
//! user strings go through [`text`] or [`attr`]; a description is Markdown rendered by
//! pulldown-cmark and cleaned by ammonia (no scripts, no event handlers, no `javascript:`
//! links), bounded in nesting when it is written.

/// Escape for text content (quotes too, so a string is safe wherever it lands).
pub fn text(s: &str) -> String {
    html_escape::encode_safe(s).into_owned()
}

/// Escape for a double-quoted attribute value.
pub fn attr(s: &str) -> String {
    html_escape::encode_double_quoted_attribute(s).into_owned()
}

/// Markdown → sanitised HTML (ammonia's allow-list: no scripts, styles, event handlers,
/// `javascript:` URLs or images).
pub fn markdown(md: &str) -> String {
    use pulldown_cmark::{Options, Parser, html};
    let mut raw = String::new();
    html::push_html(
        &mut raw,
        Parser::new_ext(md, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH),
    );
    // Images are left out too: a description cannot load anything from elsewhere.
    ammonia::Builder::default()
        .rm_tags(&["img"])
        .clean(&raw)
        .to_string()
}

/// Deepest nesting of block quotes and list items a description may have: pulldown-cmark and
/// the sanitiser's HTML parser take time that grows with the square of the depth (19,999 `>`
/// took seconds), and no description needs more.
pub const MAX_NESTING: usize = 16;

/// The deepest run of block-container markers (`>`, `-`, `+`, `*`, `1.`, `1)`) opening a line of
/// `md`, and the first line (1-based) that deep — a linear bound on the block nesting.
pub fn nesting(md: &str) -> (usize, usize) {
    let mut deepest = (0, 0);
    for (index, line) in md.lines().enumerate() {
        let mut rest = line;
        let mut depth = 0;
        loop {
            rest = rest.trim_start_matches([' ', '\t']);
            let after = if let Some(r) = rest.strip_prefix('>') {
                Some(r)
            } else if let Some(r) = rest.strip_prefix(['-', '+', '*']) {
                r.starts_with([' ', '\t']).then_some(r)
            } else {
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                let r = &rest[digits..];
                (1..=9)
                    .contains(&digits)
                    .then(|| r.strip_prefix(['.', ')']))
                    .flatten()
                    .filter(|r| r.is_empty() || r.starts_with([' ', '\t']))
            };
            match after {
                Some(r) => {
                    depth += 1;
                    rest = r;
                }
                None => break,
            }
        }
        if depth > deepest.0 {
            deepest = (depth, index + 1);
        }
    }
    deepest
}

/// A board description as stored: its sanitised HTML ([`markdown`]), or why it is refused
/// (nested deeper than [`MAX_NESTING`]). Run once when the description is written, off the
/// runtime's threads; pages serve the stored HTML.
pub fn description_html(md: &str) -> Result<String, String> {
    let (depth, line) = nesting(md);
    if depth > MAX_NESTING {
        return Err(format!(
            "the description nests {depth} block quotes or list items at line {line}; at most \
             {MAX_NESTING}"
        ));
    }
    Ok(markdown(md))
}

/// The plain text of sanitised HTML (for meta descriptions), at most `max` characters: tags
/// are word breaks, entities decoded; linear in the HTML.
pub fn plain(html: &str, max: usize) -> String {
    let mut words = String::with_capacity(html.len().min(4 * max));
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                words.push(' ');
            }
            _ if !in_tag => words.push(c),
            _ => {}
        }
        if words.len() > 8 * max + 64 {
            break;
        }
    }
    let decoded = html_escape::decode_html_entities(&words);
    let out = decoded.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.chars().count() > max {
        let cut: String = out.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_sanitised_and_text_escaped() {
        let probe = "<img src=x onerror=alert(1)>";
        let html = markdown(&format!("**bold** {probe} [x](javascript:alert(1))"));
        assert!(html.contains("<strong>bold</strong>"), "{html}");
        assert!(!html.contains("onerror"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert_eq!(text(probe), "&lt;img src=x onerror=alert(1)&gt;");
        assert!(!attr("\" onmouseover=\"x").contains('"'));
        assert_eq!(
            plain(
                &markdown("# T\n\nsome *text*\nhere &amp; <b>there</b>"),
                100
            ),
            "T some text here & there"
        );
        assert_eq!(plain(&markdown("one two three"), 8), "one two…");
    }

    #[test]
    fn nesting_counts_the_containers_opening_a_line() {
        assert_eq!(nesting("plain\n> quote\n> > - item"), (3, 3));
        assert_eq!(nesting("1. a\n   2) b\n-not a list\n*emphasis*"), (1, 1));
        assert_eq!(nesting(&">".repeat(19_999)), (19_999, 1));
        assert_eq!(nesting(&"- ".repeat(40)), (40, 1));
        assert_eq!(nesting("1234567890. not a list"), (0, 0));
        let deep = format!("ok\n{}x", "> ".repeat(MAX_NESTING + 1));
        let refused = description_html(&deep).unwrap_err();
        assert!(
            refused.contains("nests 17") && refused.contains("line 2"),
            "{refused}"
        );
        let fine = format!("{}x", "> ".repeat(MAX_NESTING));
        assert!(description_html(&fine).unwrap().contains("<blockquote>"));
    }
}
