//! The class view's agreement and norming tables, drawn with the DOM's own calls from the
//! worker's `[[data-testid, table], …]` (`workbench::table::Table`s as JSON values): one small
//! function for every table shape and no typed reader of them in the page. A `view!` per table
//! compiles its rendering once per shape, and the first paint has no room for that
//! (docs/performance.md, session 15). Texts are set as text, never parsed as HTML; a label that
//! is one of the page's text keys is translated.

use leptos::html::Div;
use leptos::prelude::*;
use serde_json::Value;
use web_sys::{Document, Element};

use crate::i18n::{Lang, lang, text_of};

/// A host for the tables of the worker's `answer` whose id starts with `prefix`: drawn into it
/// again whenever the answer or the page's language changes.
pub fn tables_host(answer: RwSignal<Option<Value>>, prefix: &'static str) -> NodeRef<Div> {
    let host = NodeRef::<Div>::new();
    Effect::new(move |_| {
        let l = lang().get();
        let Some(host) = host.get() else {
            return;
        };
        answer.with(|a| {
            let none = Value::Null;
            draw(&host, a.as_ref().map_or(&none, |a| &a["tables"]), prefix, l);
        });
    });
    host
}

/// Replace what `host` holds with those of `tables` whose id starts with `prefix`.
pub fn draw(host: &Element, tables: &Value, prefix: &str, lang: Lang) {
    host.set_text_content(None);
    let Some(doc) = host.owner_document() else {
        return;
    };
    let str_of = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let text = |v: &Value| {
        let s = v.as_str().unwrap_or_default();
        text_of(lang, s).unwrap_or(s).to_string()
    };
    let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
    for pair in list(tables) {
        let (id, table) = (str_of(&pair[0]), &pair[1]);
        if !id.starts_with(prefix) {
            continue;
        }
        let Some(box_) = child(&doc, host, "div", None) else {
            return;
        };
        box_.set_class_name("scroll-box");
        let Some(el) = child(&doc, &box_, "table", None) else {
            return;
        };
        el.set_class_name("metrics");
        attr(&el, "data-testid", &id);
        if !str_of(&table["caption"]).is_empty() {
            child(&doc, &el, "caption", Some(&text(&table["caption"])));
        }
        let columns = list(&table["columns"]);
        let mut head = vec![&table["corner"]];
        head.extend(columns.iter().map(|c| &c["label"]));
        if head.iter().any(|h| !str_of(h).is_empty())
            && let Some(tr) = child(&doc, &el, "tr", None)
        {
            for h in head {
                if let Some(th) = child(&doc, &tr, "th", Some(&text(h))) {
                    attr(&th, "scope", "col");
                }
            }
        }
        for row in list(&table["rows"]) {
            let Some(tr) = child(&doc, &el, "tr", None) else {
                return;
            };
            attr(&tr, "data-key", &str_of(&row["key"]));
            if let Some(th) = child(&doc, &tr, "th", Some(&text(&row["label"]))) {
                attr(&th, "scope", "row");
            }
            for cell in list(&row["cells"]) {
                let Some(td) = child(&doc, &tr, "td", Some(&str_of(&cell["display"]))) else {
                    return;
                };
                // A number keeps its whole value (`null` when undefined); a text cell has no
                // metric.
                let metric = str_of(&cell["metric"]);
                if !metric.is_empty() {
                    td.set_class_name("num");
                    attr(&td, "data-metric", &metric);
                    attr(&td, "data-value", &cell["value"].to_string());
                }
            }
        }
    }
}

/// A new `tag` element appended to `parent`, with `text` as its text.
fn child(doc: &Document, parent: &Element, tag: &str, text: Option<&str>) -> Option<Element> {
    let el = doc.create_element(tag).ok()?;
    if text.is_some() {
        el.set_text_content(text);
    }
    parent.append_child(&el).ok()?;
    Some(el)
}

fn attr(el: &Element, name: &str, value: &str) {
    let _ = el.set_attribute(name, value);
}
