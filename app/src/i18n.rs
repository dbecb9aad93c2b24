//! The interface in Simplified Chinese and English. One table of texts, keyed by a short name;
//! the language defaults to the browser's and is kept in the URL (`lang=zh-CN` / `lang=en`).

use leptos::prelude::*;

/// The interface language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    /// The URL / `lang` attribute value.
    pub fn key(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }

    /// From a URL value or a browser language tag (`zh`, `zh-CN`, `zh-Hans-CN`, `en-US`, …).
    pub fn parse(tag: &str) -> Option<Lang> {
        let tag = tag.to_ascii_lowercase();
        if tag.starts_with("zh") {
            Some(Lang::Zh)
        } else if tag.starts_with("en") {
            Some(Lang::En)
        } else {
            None
        }
    }

    /// The browser's preferred language, English when it is neither.
    pub fn from_browser() -> Lang {
        web_sys::window()
            .and_then(|w| w.navigator().language())
            .and_then(|l| Lang::parse(&l))
            .unwrap_or_default()
    }

    /// The other language (the switch button).
    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::Zh,
            Lang::Zh => Lang::En,
        }
    }

    /// The language's own name.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Zh => "中文",
        }
    }
}

/// The current language, provided once by the page.
pub fn lang() -> RwSignal<Lang> {
    use_context::<RwSignal<Lang>>().unwrap_or_else(|| RwSignal::new(Lang::default()))
}

/// The text `key` in `lang`; the key itself when the table lacks it.
pub fn t(lang: Lang, key: &'static str) -> &'static str {
    let (en, zh) = match key {
        "tagline" => (
            "Official benchmark numbers, computed in your browser. Nothing is uploaded.",
            "官方评测数字，在您的浏览器中计算。文件不会上传。",
        ),
        "drop.title" => ("Drop prediction files here", "把预测文件拖到这里"),
        "drop.hint" => (
            " or click to choose — benchmark files, JSONL with gold/pred, or CSV with gold,pred columns. Nothing leaves your browser.",
            "，或点击选择——评测文件、含 gold/pred 的 JSONL、或含 gold,pred 列的 CSV。文件不会离开您的浏览器。",
        ),
        "tab.table" => ("Table", "表格"),
        "tab.charts" => ("Charts", "图表"),
        "tab.samples" => ("Samples", "样本"),
        "tab.compare" => ("Compare", "比较"),
        "tab.class" => ("Class", "班级"),
        "files" => ("files", "个文件"),
        "variant" => ("Variant: ", "版本："),
        "variant.hint" => (
            "Cells that differ from the official numbers are highlighted.",
            "与官方数字不同的单元格已高亮。",
        ),
        "scored.in" => ("scored in", "计算用时"),
        "class.none" => (
            "Drop a class's essays (the EOTGC test file), with the model's levels and comments, to read them here.",
            "拖入班级作文（EOTGC 测试文件）以及模型给出的等级和评语，即可在此阅读。",
        ),
        "class.distribution" => ("Levels per grade", "各年级等级分布"),
        "class.by_title" => ("Levels per prompt", "各题目等级分布"),
        "class.grade" => ("grade", "年级"),
        "class.overall" => ("all grades", "全部年级"),
        "class.no_level" => ("no level", "无等级"),
        "class.essays" => ("essays", "篇作文"),
        "class.id" => ("id", "编号"),
        "class.title" => ("title", "题目"),
        "class.level" => ("level", "等级"),
        "class.gold" => ("gold", "标准"),
        "class.teacher" => ("teacher", "教师"),
        "class.comment" => ("comment", "评语"),
        "class.chars" => ("characters", "字"),
        "class.all_grades" => ("all grades", "全部年级"),
        "class.all_levels" => ("all levels", "全部等级"),
        "class.all_comments" => ("all comments", "全部评语"),
        "class.over" => ("comment over the limit", "评语超长"),
        "class.empty" => ("empty comment", "评语为空"),
        "class.flagged" => ("over the limit or empty", "超长或为空"),
        "class.all_review" => ("reviewed or not", "全部"),
        "class.reviewed" => ("reviewed", "已审阅"),
        "class.not_reviewed" => ("not reviewed", "未审阅"),
        "class.disagree" => ("teacher ≠ model", "教师与模型不一致"),
        "class.search" => ("search title and text…", "搜索题目和正文…"),
        "class.requirement" => ("Prompt", "写作要求"),
        "class.essay" => ("Essay", "作文"),
        "class.model_level" => ("Model's level", "模型等级"),
        "class.gold_level" => ("Gold level", "标准等级"),
        "class.teacher_level" => ("Your level", "教师等级"),
        "class.keep_model" => ("(keep the model's)", "（沿用模型等级）"),
        "class.model_comment" => ("Model's comment", "模型评语"),
        "class.your_comment" => ("Your comment (released instead)", "教师评语（发布时替换）"),
        "class.mark_reviewed" => ("Reviewed", "已审阅"),
        "class.prev" => ("← previous (k)", "← 上一篇 (k)"),
        "class.next" => ("next (j) →", "下一篇 (j) →"),
        "class.reset" => ("Reset my adjustments", "清除我的调整"),
        "class.reset_confirm" => (
            "Forget every level, comment and review mark you set for this class?",
            "清除您为这个班级设置的全部等级、评语和审阅标记？",
        ),
        "class.private" => (
            "Your adjustments stay in this browser (IndexedDB); nothing is uploaded.",
            "您的调整只保存在本浏览器（IndexedDB）中，不会上传。",
        ),
        "class.agreement" => ("Teacher and model", "教师与模型一致性"),
        "class.agreement_none" => (
            "Mark essays as reviewed to see how often you agree with the model.",
            "将作文标为已审阅后，可查看您与模型的一致程度。",
        ),
        "class.exact" => ("exact agreement", "完全一致率"),
        "class.gold_scores" => ("Model against gold", "模型与标准等级"),
        "class.export_csv" => ("CSV", "CSV"),
        "class.export_xlsx" => ("XLSX", "XLSX"),
        "class.export_t1" => ("Track 1 levels (JSON)", "赛道一等级 (JSON)"),
        "class.export_t2" => ("Track 2 comments (JSON)", "赛道二评语 (JSON)"),
        "class.print" => ("Print", "打印"),
        "class.summary" => ("Class summary", "班级概况"),
        "class.shown" => ("shown", "篇显示"),
        "files.file" => ("file", "文件"),
        "files.size" => ("size", "大小"),
        "files.model" => ("model", "模型"),
        "files.role" => ("recognised as", "识别为"),
        "files.why" => ("why", "依据"),
        "export" => ("Export: ", "导出："),
        "samples.all_subsets" => ("all subsets", "全部子集"),
        "samples.all_errors" => ("all error types", "全部错误类型"),
        "samples.min" => ("disagreement ≥ ", "差异 ≥ "),
        "samples.search" => ("search id, text, errors…", "搜索编号、文本、错误…"),
        "samples.subset" => ("subset", "子集"),
        "samples.id" => ("id", "编号"),
        "samples.gold" => ("gold", "标准"),
        "samples.pred" => ("pred", "预测"),
        "samples.errors" => ("error types", "错误类型"),
        "samples.count" => ("samples", "个样本"),
        "samples.none" => ("Drop files to see their samples.", "拖入文件后可查看样本。"),
        "compare.none" => (
            "Drop a second model's files for the same benchmark (in a separate drop) to compare models.",
            "再拖入同一评测的另一个模型的文件（单独拖入一次），即可比较模型。",
        ),
        "compare.run" => ("Bootstrap the differences", "自助法估计差异"),
        "compare.resamples" => ("resamples ", "重采样次数 "),
        "compare.seed" => ("seed ", "随机种子 "),
        "compare.diff" => ("Per-sample diff", "逐样本差异"),
        "compare.diff_hint" => (
            "aligned samples, largest disagreement first",
            "个对齐样本，差异最大者在前",
        ),
        "charts.confusion" => ("Gold × predicted totals", "标准 × 预测 计数"),
        "charts.distributions" => ("Score distributions", "分数分布"),
        "charts.levels" => ("Relevance levels", "切题等级"),
        "progress.reading" => ("Reading files…", "正在读取文件…"),
        "progress.bootstrap" => ("Bootstrap resampling…", "自助法重采样…"),
        "progress.scoring" => (
            "Parsing and scoring (in a background worker)…",
            "正在解析和计算（后台线程）…",
        ),
        _ => crate::leaderboard::texts::text(key).unwrap_or((key, key)),
    };
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

/// A level's name in the interface language (the data's own spelling is kept elsewhere).
pub fn level_name(lang: Lang, chinese: &str, english: &str) -> String {
    match lang {
        Lang::Zh => chinese.to_string(),
        Lang::En => format!("{english} · {chinese}"),
    }
}

/// A level's short name (list badges).
pub fn level_short(lang: Lang, chinese: &str, english: &str) -> String {
    match lang {
        Lang::Zh => chinese.to_string(),
        Lang::En => english.to_string(),
    }
}
