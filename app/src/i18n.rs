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

/// The text `key` in the page's language, as a view that follows the language. Every call has
/// one closure type, so the views using it share one rendering code (a distinct closure per
/// text made each its own copy).
pub fn tr(key: &'static str) -> impl Fn() -> &'static str + Copy + Send + Sync + 'static {
    let l = lang();
    move || t(l.get(), key)
}

/// The text `key` in `lang`; the key itself when the table lacks it.
pub fn t(lang: Lang, key: &'static str) -> &'static str {
    text_of(lang, key).unwrap_or(key)
}

/// The text of a key that came as data (a view model's label), if there is one.
pub fn text_of(lang: Lang, key: &str) -> Option<&'static str> {
    let (en, zh) = match TEXTS.binary_search_by(|(k, _)| (*k).cmp(key)) {
        Ok(at) => TEXTS[at].1,
        Err(_) => crate::leaderboard::texts::text(key)?,
    };
    Some(match lang {
        Lang::En => en,
        Lang::Zh => zh,
    })
}

/// Every text as (key, (English, Chinese)), sorted by key (`t` searches it; a table, not a
/// `match`: a few hundred string arms compiled to 10 KB of comparisons in the page).
#[rustfmt::skip]
static TEXTS: &[(&str, (&str, &str))] = &[
    ("ask.cancel", ("Cancel", "取消")),
    ("ask.class", ("Ask the model…", "请模型补全…")),
    ("ask.comments", ("comments for the {n} essays without one", "为 {n} 篇无评语的作文生成评语")),
    ("ask.done", ("results are in the list", "结果已显示在列表中")),
    ("ask.essay", ("Ask the model for this essay…", "请模型评阅本篇…")),
    ("ask.levels", ("levels for the {n} essays without one", "为 {n} 篇无等级的作文生成等级")),
    ("ask.model", ("model ", "模型 ")),
    ("ask.no_price", ("not priced", "未设置价格")),
    ("ask.nothing", ("Every essay already has what you asked for.", "所选作文都已有等级和评语，无需补全。")),
    ("ask.progress", ("{what}: {done} of {total} essays ({state}) — {calls} upstream calls, {hits} cached, {tokens} tokens, cost {cost}", "{what}：{done} / {total} 篇（{state}）— 上游调用 {calls} 次，缓存命中 {hits} 次，{tokens} 个 token，费用 {cost}")),
    ("ask.send", ("Send to {model}", "发送给 {model}")),
    ("ask.title", ("Ask the model", "请模型补全")),
    ("ask.track1", ("levels", "等级")),
    ("ask.track2", ("comments", "评语")),
    ("ask.where", ("Before anything is sent: the prompt, title and text of {n} essays ({chars} characters) will leave this browser for this server, which sends them to the model \u{201c}{model}\u{201d} (configured upstream \u{201c}{upstream}\u{201d}). Its replies are cached on the server. Nothing has been sent yet.", "发送之前请确认：{n} 篇作文的写作要求、题目和正文（共 {chars} 字）将离开本浏览器，发送到本服务器，再由服务器发给模型\u{201c}{model}\u{201d}（已配置的上游\u{201c}{upstream}\u{201d}）。回复会缓存在服务器上。目前尚未发送任何内容。")),
    ("charts.confusion", ("Gold × predicted totals", "标准 × 预测 计数")),
    ("charts.distributions", ("Score distributions", "分数分布")),
    ("charts.error_types", ("{subset}: error types", "{subset}：错误类型")),
    ("charts.errors", ("errors", "错误数")),
    ("charts.essays", ("essays", "篇作文")),
    ("charts.gold", ("gold", "标准")),
    ("charts.gold_vs_pred", ("gold vs predicted scores", "标准分与预测分")),
    ("charts.gold_x_pred", ("gold × predicted", "标准 × 预测")),
    ("charts.levels", ("Relevance levels", "切题等级")),
    ("charts.levels_of", ("levels · {grade}", "等级 · {grade}")),
    ("charts.per_subset", ("{metric} per subset", "各子集 {metric}")),
    ("charts.per_subset_note", ("{metric} per subset (undefined drawn as 0)", "各子集 {metric}（无定义的画作 0）")),
    ("charts.predicted", ("predicted", "预测")),
    ("charts.records", ("records", "条记录")),
    ("charts.tier", ("{subset}: error types, {tier} (ρ = {rho})", "{subset}：错误类型，{tier}（ρ = {rho}）")),
    ("class.agreement", ("Teacher and model", "教师与模型一致性")),
    ("class.agreement_none", ("Mark essays as reviewed to see how often you agree with the model.", "将作文标为已审阅后，可查看您与模型的一致程度。")),
    ("class.all_comments", ("all comments", "全部评语")),
    ("class.all_grades", ("all grades", "全部年级")),
    ("class.all_levels", ("all levels", "全部等级")),
    ("class.all_review", ("reviewed or not", "全部")),
    ("class.back", ("← list", "← 列表")),
    ("class.by_title", ("Levels per prompt", "各题目等级分布")),
    ("class.chars", ("characters", "字")),
    ("class.comment", ("comment", "评语")),
    ("class.confusion", ("teacher ↓ × model's level →", "教师 ↓ × 模型等级 →")),
    ("class.disagree", ("teacher ≠ model", "教师与模型不一致")),
    ("class.distribution", ("Levels per grade", "各年级等级分布")),
    ("class.empty", ("empty comment", "评语为空")),
    ("class.essay", ("Essay", "作文")),
    ("class.exact", ("exact agreement", "完全一致率")),
    ("class.export_csv", ("CSV", "CSV")),
    ("class.export_t1", ("Track 1 levels (JSON)", "赛道一等级 (JSON)")),
    ("class.export_t2", ("Track 2 comments (JSON)", "赛道二评语 (JSON)")),
    ("class.export_xlsx", ("XLSX", "XLSX")),
    ("class.export_xlsx_busy", ("XLSX…", "XLSX…")),
    ("class.flagged", ("over the limit or empty", "超长或为空")),
    ("class.gold", ("gold", "标准")),
    ("class.gold_level", ("Gold level", "标准等级")),
    ("class.gold_scores", ("Model against gold", "模型与标准等级")),
    ("class.grade", ("grade", "年级")),
    ("class.id", ("id", "编号")),
    ("class.keep_model", ("(keep the model's)", "（沿用模型等级）")),
    ("class.level", ("level", "等级")),
    ("class.mark_reviewed", ("Reviewed", "已审阅")),
    ("class.model_comment", ("Model's comment", "模型评语")),
    ("class.model_level", ("Model's level", "模型等级")),
    ("class.next", ("next (j) →", "下一篇 (j) →")),
    ("class.no_level", ("no level", "无等级")),
    ("class.none", ("Drop a class's essays (the EOTGC test file), with the model's levels and comments, to read them here.", "拖入班级作文（EOTGC 测试文件）以及模型给出的等级和评语，即可在此阅读。")),
    ("class.not_reviewed", ("not reviewed", "未审阅")),
    ("class.over", ("comment over the limit", "评语超长")),
    ("class.overall", ("all grades", "全部年级")),
    ("class.prev", ("← previous (k)", "← 上一篇 (k)")),
    ("class.print", ("Print", "打印")),
    ("class.private", ("Your adjustments stay in this browser (IndexedDB); nothing is uploaded.", "您的调整只保存在本浏览器（IndexedDB）中，不会上传。")),
    ("class.requirement", ("Prompt", "写作要求")),
    ("class.reset", ("Reset my adjustments", "清除我的调整")),
    ("class.reset_confirm", ("Forget every level, comment and review mark you set for this class, and what the model wrote for it on request?", "清除您为这个班级设置的全部等级、评语和审阅标记，以及应您请求由模型生成的等级和评语？")),
    ("class.reviewed", ("reviewed", "已审阅")),
    ("class.search", ("search title and text…", "搜索题目和正文…")),
    ("class.shown", ("shown", "篇显示")),
    ("class.summary", ("Class summary", "班级概况")),
    ("class.teacher", ("teacher", "教师")),
    ("class.teacher_level", ("Your level", "教师等级")),
    ("class.title", ("title", "题目")),
    ("class.your_comment", ("Your comment (released instead)", "教师评语（发布时替换）")),
    ("compare.caption", ("paired bootstrap, {resamples} resamples, seed {seed}, {aligned} aligned records: difference = A − B, 95 % percentile interval", "配对自助法，重采样 {resamples} 次，随机种子 {seed}，{aligned} 条对齐记录：差异 = A − B，95 % 百分位区间")),
    ("compare.defined", ("defined", "有定义")),
    ("compare.diff", ("Per-sample diff", "逐样本差异")),
    ("compare.diff_hint", ("aligned samples, largest disagreement first", "个对齐样本，差异最大者在前")),
    ("compare.interval", ("95 % interval", "95 % 区间")),
    ("compare.metric", ("metric", "指标")),
    ("compare.no_table", ("a selected model has no table", "所选模型没有结果表")),
    ("compare.none", ("Drop a second model's files for the same benchmark (in a separate drop) to compare models.", "再拖入同一评测的另一个模型的文件（单独拖入一次），即可比较模型。")),
    ("compare.not_scored", ("a selected model did not score", "所选模型未能计算出结果")),
    ("compare.resamples", ("resamples ", "重采样次数 ")),
    ("compare.run", ("Bootstrap the differences", "自助法估计差异")),
    ("compare.seed", ("seed ", "随机种子 ")),
    ("drop.hint", (" or click to choose — benchmark files, JSONL with gold/pred, or CSV with gold,pred columns. Nothing leaves your browser.", "，或点击选择——评测文件、含 gold/pred 的 JSONL、或含 gold,pred 列的 CSV。文件不会离开您的浏览器。")),
    ("drop.title", ("Drop prediction files here", "把预测文件拖到这里")),
    ("export", ("Export: ", "导出：")),
    ("files", ("files", "个文件")),
    ("files.file", ("file", "文件")),
    ("files.model", ("model", "模型")),
    ("files.model_n", ("model", "模型")),
    ("files.remove", ("remove", "移除")),
    ("files.role", ("recognised as", "识别为")),
    ("files.shared", ("shared", "共用")),
    ("files.size", ("size", "大小")),
    ("files.why", ("why", "依据")),
    ("norming.adjacent", ("adjacent (±1 level)", "相邻一致率（±1 级）")),
    ("norming.alpha", ("Krippendorff's α (ordinal)", "Krippendorff α（有序）")),
    ("norming.disputed", ("Essays to discuss (widest disagreement first)", "需要讨论的作文（分歧最大者在前）")),
    ("norming.essays", ("essays rated twice", "至少两位教师评过的作文")),
    ("norming.export", ("Export my ratings", "导出我的评分")),
    ("norming.hint", ("Export your ratings (the essays you marked reviewed) for colleagues; import theirs (their ratings or Track 1 file) to compare. Nothing is uploaded.", "导出你的评分（已审阅的作文）给同事；导入同事的评分文件或 Track 1 文件进行比较。不会上传任何内容。")),
    ("norming.import", ("Import a colleague's ratings", "导入同事的评分")),
    ("norming.me", ("me", "我")),
    ("norming.model", ("model", "模型")),
    ("norming.more", ("more", "篇未列出")),
    ("norming.pairs", ("Agreement of every pair", "两两一致性")),
    ("norming.remove", ("remove", "移除")),
    ("norming.spread", ("spread", "分歧级数")),
    ("norming.teachers", ("teachers", "教师之间")),
    ("norming.title", ("Several teachers on this class", "多位教师评同一个班")),
    ("norming.with_model", ("teachers and model", "教师与模型")),
    ("progress.bootstrap", ("Bootstrap resampling…", "自助法重采样…")),
    ("progress.reading", ("Reading files…", "正在读取文件…")),
    ("progress.scoring", ("Parsing and scoring (in a background worker)…", "正在解析和计算（后台线程）…")),
    ("run.benchmark", ("benchmark ", "评测 ")),
    ("run.cost", (", cost {c}", "，费用 {c}")),
    ("run.dataset", ("dataset ", "数据集 ")),
    ("run.eta", (", ETA {s} s", "，预计还需 {s} 秒")),
    ("run.field.dataset_files", ("dataset files (error_type.jsonl + gold .jsonl) ", "数据集文件（error_type.jsonl 与标注 .jsonl） ")),
    ("run.field.embedding_model", ("embedding model ", "嵌入模型 ")),
    ("run.field.few_shot", ("few-shot examples ", "少样本示例数 ")),
    ("run.field.judge_model", ("judge model ", "评审模型 ")),
    ("run.field.judge_models", ("judge models ", "评审模型（多个） ")),
    ("run.field.log", ("log (JSON) ", "日志（JSON） ")),
    ("run.field.seed", ("few-shot seed ", "示例抽取种子 ")),
    ("run.field.step2_model", ("model name step 2 used (main_[model].py) ", "第 2 步所用的模型名（main_[模型].py） ")),
    ("run.field.track", ("track ", "赛道 ")),
    ("run.hint", ("The server holds the API keys and caches every reply: an interrupted run resumes without paying twice.", "服务器保管 API 密钥并缓存每个回复：中断的运行可以继续，不会重复付费。")),
    ("run.id", ("run id ", "运行编号 ")),
    ("run.limit", ("limit (0 = all) ", "数量上限（0 = 全部）")),
    ("run.model", ("model ", "模型 ")),
    ("run.open", ("Open in the workbench", "在工作台中打开")),
    ("run.pause", ("Pause", "暂停")),
    ("run.progress", ("{state}: {done} of {total} items{rate}{eta} — {model_usage}{judge_usage}", "{state}：{done} / {total} 条{rate}{eta} — {model_usage}{judge_usage}")),
    ("run.rate", (" at {r}/s", "，每秒 {r} 条")),
    ("run.resume", ("Resume", "继续")),
    ("run.samples", ("samples per question ", "每题采样次数 ")),
    ("run.show", ("Show", "查看")),
    ("run.start", ("Start", "开始")),
    ("run.title", ("Run a model through the server", "通过服务器运行模型")),
    ("run.usage_judge", ("; judge: {calls} upstream calls, {hits} cache hits, {prompt} + {completion} tokens{cost}", "；评审：上游调用 {calls} 次，缓存命中 {hits} 次，{prompt} + {completion} 个 token{cost}")),
    ("run.usage_model", ("model: {calls} upstream calls, {hits} cache hits, {prompt} + {completion} tokens{cost}", "模型：上游调用 {calls} 次，缓存命中 {hits} 次，{prompt} + {completion} 个 token{cost}")),
    ("run.workers", ("workers ", "并发数 ")),
    ("samples.all_errors", ("all error types", "全部错误类型")),
    ("samples.all_subsets", ("all subsets", "全部子集")),
    ("samples.count", ("samples", "个样本")),
    ("samples.errors", ("error types", "错误类型")),
    ("samples.gold", ("gold", "标准")),
    ("samples.gold_errors", ("gold errors", "标准错误类型")),
    ("samples.id", ("id", "编号")),
    ("samples.loading", ("Gathering the samples…", "正在整理样本…")),
    ("samples.min", ("disagreement ≥ ", "差异 ≥ ")),
    ("samples.none", ("Drop files to see their samples.", "拖入文件后可查看样本。")),
    ("samples.pred", ("pred", "预测")),
    ("samples.pred_errors", ("predicted errors", "预测错误类型")),
    ("samples.response", ("response", "回答")),
    ("samples.search", ("search id, text, errors…", "搜索编号、文本、错误…")),
    ("samples.step", ("step", "步骤")),
    ("samples.subset", ("subset", "子集")),
    ("scored.in", ("scored in", "计算用时")),
    ("share.adjustments_kept", ("You kept your own adjustments for this class; the sender's were not applied.", "您保留了自己对该班级的调整，未采用发送者的调整。")),
    ("share.adjustments_saved", ("The sender's adjustments were saved in this browser (IndexedDB).", "发送者的调整已保存到本浏览器（IndexedDB）。")),
    ("share.button", ("Share privately", "私密分享")),
    ("share.close", ("Close", "关闭")),
    ("share.copied", ("Copied", "已复制")),
    ("share.copy", ("Copy", "复制")),
    ("share.create", ("Create the link", "生成链接")),
    ("share.days", ("days", "天")),
    ("share.delete", ("Delete the share now", "立即删除此分享")),
    ("share.deleted", ("The share is deleted: the link no longer opens.", "分享已删除：链接已失效。")),
    ("share.expired", ("This share has expired and was deleted from the server.", "此分享已过期，已从服务器删除。")),
    ("share.expires_in", ("Expires after", "有效期")),
    ("share.expires_on", ("Expires on", "过期日期")),
    ("share.explain", ("The files, the view and your adjustments are encrypted in this browser (AES-256-GCM, a new random key) before anything is uploaded. The key is the part of the link after #, which browsers never send to a server: the server keeps only bytes it cannot read. Anyone who has the whole link can open it until it expires.", "文件、当前视图和您的调整会先在本浏览器中加密（AES-256-GCM，每次新生成随机密钥），然后才上传。密钥是链接中 # 之后的部分，浏览器从不把它发送给服务器：服务器只保存它无法读取的数据。任何拿到完整链接的人在过期前都能打开。")),
    ("share.failed", ("The share could not be made or opened:", "无法创建或打开分享：")),
    ("share.limit", ("At most 32 MiB after encryption.", "加密后最多 32 MiB。")),
    ("share.link", ("Link", "链接")),
    ("share.missing_key", ("This link has no key: the part after # is missing, so the share cannot be decrypted. Ask the sender for the whole link.", "此链接缺少密钥：# 之后的部分不见了，无法解密。请向发送者索要完整链接。")),
    ("share.not_found", ("There is no such share: it was deleted, it expired, or the link is wrong.", "没有这个分享：它已被删除、已过期，或链接有误。")),
    ("share.opened", ("Opened a private share, decrypted in this browser.", "已打开私密分享（在本浏览器中解密）。")),
    ("share.opening", ("Opening the private share…", "正在打开私密分享…")),
    ("share.replace_confirm", ("This link carries the sender's adjustments for a class you have adjusted yourself in this browser. Replace your adjustments with the sender's? (Cancel keeps yours.)", "此链接带有发送者对一个班级的调整，而您在本浏览器中也调整过这个班级。要用发送者的调整替换您的调整吗？（取消则保留您的调整。）")),
    ("share.title", ("Share privately", "私密分享")),
    ("share.token", ("Delete token (shown only this once: keep it to delete the share before it expires)", "删除令牌（只显示这一次：请保存好，可在过期前删除此分享）")),
    ("share.too_large", ("Too large to share: the limit is 32 MiB after encryption.", "内容太大，无法分享：加密后上限为 32 MiB。")),
    ("share.unreadable", ("The share was decrypted but its content cannot be read:", "分享已解密，但内容无法读取：")),
    ("share.working", ("Encrypting and uploading…", "正在加密并上传…")),
    ("share.wrong_key", ("The key in this link does not open this share: the link is incomplete or altered. Ask the sender for the whole link.", "此链接中的密钥无法打开这个分享：链接不完整或被改动。请向发送者索要完整链接。")),
    ("spec.cancel", ("Cancel", "取消")),
    ("spec.define", ("Define a benchmark from these files…", "用这些文件定义一个基准…")),
    ("spec.field", ("field", "字段")),
    ("spec.forget", ("forget this spec", "移除此规格")),
    ("spec.forget_hint", ("Benchmarks defined or dropped here are kept in this browser and recognise their files on your next visits. Click a key to download its spec again; a forgotten spec stops being recognised when the page is opened again.", "在此定义或拖入的基准保存在本浏览器中，之后访问时会自动识别其文件。点击键名可再次下载规格文件；移除的规格在下次打开页面后不再识别。")),
    ("spec.hint", ("No benchmark recognised these files. Say what each field is and which metrics to compute; the report below is computed on your files as you choose. Saving downloads the spec (TOML: scorebench score --spec, boards) and keeps it in this browser, so these files are recognised next time.", "没有基准能识别这些文件。请说明每个字段的含义并选择要计算的指标；下方报告会随选择在您的文件上即时计算。保存会下载规格文件（TOML，可用于 scorebench score --spec 和排行榜），并保存在本浏览器中，下次拖入同样的文件即可识别。")),
    ("spec.integer", ("whole numbers (scores)", "整数（分数）")),
    ("spec.kept", ("Benchmarks kept in this browser", "本浏览器中保存的基准")),
    ("spec.key", ("key", "键名")),
    ("spec.label", ("labels (text)", "标签（文本）")),
    ("spec.metrics", ("Metrics (the first checked ranks)", "指标（勾选的第一个用于排名）")),
    ("spec.name", ("name", "名称")),
    ("spec.number", ("numbers", "数值")),
    ("spec.samples", ("first values", "前几个值")),
    ("spec.save", ("Save the spec and score", "保存规格并评分")),
    ("spec.title", ("Define a benchmark", "定义基准")),
    ("spec.use", ("is", "用作")),
    ("spec.use_gold", ("gold", "标准答案")),
    ("spec.use_id", ("id", "编号")),
    ("spec.use_pred", ("prediction", "预测")),
    ("spec.use_subset", ("subset", "子集")),
    ("spec.use_text", ("text shown", "展示文本")),
    ("spec.use_unused", ("not used", "不使用")),
    ("spec.use_weight", ("weight", "权重")),
    ("spec.values", ("Values", "取值类型")),
    ("state.cancelled", ("cancelled", "已取消")),
    ("state.failed", ("failed", "失败")),
    ("state.finished", ("finished", "已完成")),
    ("state.interrupted", ("interrupted", "已中断")),
    ("state.paused", ("paused", "已暂停")),
    ("state.running", ("running", "运行中")),
    ("tab.charts", ("Charts", "图表")),
    ("tab.class", ("Class", "班级")),
    ("tab.compare", ("Compare", "比较")),
    ("tab.samples", ("Samples", "样本")),
    ("tab.table", ("Table", "表格")),
    ("tagline", ("Official benchmark numbers, computed in your browser. Nothing is uploaded.", "官方评测数字，在您的浏览器中计算。文件不会上传。")),
    ("variant", ("Variant: ", "版本：")),
    ("variant.hint", ("Cells that differ from the official numbers are highlighted.", "与官方数字不同的单元格已高亮。")),
    ("warnings", ("warnings", "条警告")),
    ("warnings.more", ("more not shown: the JSON export has every warning", "条未显示：JSON 导出包含全部警告")),
];

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

/// The text `key` in `lang` with each `{name}` replaced by its value.
pub fn tf(lang: Lang, key: &'static str, values: &[(&str, &str)]) -> String {
    let mut out = t(lang, key).to_string();
    for (name, value) in values {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

/// The worker's name of a model group (`model 2`) or of the files all models share (`shared`)
/// in `lang`; other names as they are.
pub fn model_name(lang: Lang, name: &str) -> String {
    match (name, name.strip_prefix("model ")) {
        ("shared", _) => t(lang, "files.shared").to_string(),
        (_, Some(n)) if n.parse::<u32>().is_ok() => format!("{} {n}", t(lang, "files.model_n")),
        _ => name.to_string(),
    }
}

/// A run state's name (`running`, `finished`, …) in `lang`; unknown states as they are.
pub fn run_state(lang: Lang, state: &str) -> String {
    let key = match state {
        "running" => "state.running",
        "paused" => "state.paused",
        "finished" => "state.finished",
        "failed" => "state.failed",
        "cancelled" => "state.cancelled",
        "interrupted" => "state.interrupted",
        _ => return state.to_string(),
    };
    t(lang, key).to_string()
}
