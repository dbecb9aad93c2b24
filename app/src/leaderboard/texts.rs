//! The leaderboard texts (English, Simplified Chinese), looked up by [`crate::i18n::t`] for keys
//! starting with `lb.`: [`publish`] holds the workbench's Publish form's (every bundle carries
//! them), [`boards`] the board pages' — registered by the boards binary ([`register_boards`]), so
//! the workbench's first paint carries none of them.

use std::sync::OnceLock;

/// A table of texts: a key's (English, Chinese).
type Texts = fn(&str) -> Option<(&'static str, &'static str)>;

/// The board pages' texts, once the boards binary registered them.
static BOARDS: OnceLock<Texts> = OnceLock::new();

/// Make the board pages' texts available to [`crate::i18n::t`] (the boards binary, at start).
pub fn register_boards() {
    let _ = BOARDS.set(boards);
}

/// A leaderboard text: the Publish form's, else the board pages' when registered.
pub fn text(key: &str) -> Option<(&'static str, &'static str)> {
    publish(key).or_else(|| BOARDS.get().and_then(|boards| boards(key)))
}

/// The workbench's Publish form.
fn publish(key: &str) -> Option<(&'static str, &'static str)> {
    Some(match key {
        "lb.model" => ("Model", "模型"),
        "lb.organisation" => ("Organisation", "机构"),
        "lb.parameters" => ("Parameters", "参数量"),
        "lb.open_weights" => ("Open weights", "开放权重"),
        "lb.publish" => ("Publish to a leaderboard", "发布到排行榜"),
        "lb.publish_hint" => (
            "Uploads the prediction files and the numbers computed here; the server scores the files again and refuses the entry if any number differs in any bit.",
            "上传预测文件和本页计算出的数字；服务器会重新计算，若任何数字有任何一位不同则拒绝。",
        ),
        "lb.slug" => ("board (slug)", "排行榜（标识）"),
        "lb.job" => ("scored job", "评分任务"),
        "lb.link" => ("link", "链接"),
        "lb.date" => ("date", "日期"),
        "lb.notes" => ("notes", "备注"),
        "lb.yes" => ("yes", "是"),
        "lb.no" => ("no", "否"),
        "lb.unknown" => ("—", "—"),
        "lb.publish_go" => ("Publish", "发布"),
        "lb.publishing" => ("Publishing…", "正在发布…"),
        "lb.published" => ("Published: ", "已发布："),
        "lb.entry_token" => (
            "Entry token (shown once; keep it to edit or withdraw the entry): ",
            "条目令牌（只显示一次，用于编辑或撤回条目）：",
        ),
        "lb.refused" => ("The server refused the entry: ", "服务器拒绝了该条目："),
        "lb.differs" => (
            "These values differ (server → this page):",
            "以下数值不同（服务器 → 本页）：",
        ),
        "lb.need_model" => (
            "Give the board and the model's name.",
            "请填写排行榜和模型名称。",
        ),
        "lb.no_files" => (
            "This job has no prediction files of its own to publish.",
            "该任务没有可发布的预测文件。",
        ),
        "lb.not_dropped" => (
            "only files dropped into this page can be published (save a run's outputs and drop them)",
            "只能发布拖入本页的文件（请先保存运行结果再拖入）",
        ),
        _ => return None,
    })
}

/// The board, entry and compare pages.
fn boards(key: &str) -> Option<(&'static str, &'static str)> {
    Some(match key {
        "lb.boards" => ("Leaderboards", "排行榜"),
        "lb.no_boards" => ("No leaderboards yet.", "还没有排行榜。"),
        "lb.board" => ("Leaderboard", "排行榜"),
        "lb.benchmark" => ("Benchmark", "评测"),
        "lb.entries" => ("Entries", "条目"),
        "lb.workbench" => ("Workbench", "工作台"),
        "lb.loading" => ("Loading…", "正在加载…"),
        "lb.ranked_by" => ("ranked by", "排名依据"),
        "lb.full_precision" => ("at full precision", "按全精度"),
        "lb.variant" => ("variant", "版本"),
        "lb.values_x" => ("values ×", "数值 ×"),
        "lb.rank" => ("Rank", "排名"),
        "lb.status" => ("Status", "状态"),
        "lb.submitted" => ("Submitted", "提交时间"),
        "lb.verified" => ("verified", "已验证"),
        "lb.reported" => ("reported, not verified", "自报，未验证"),
        "lb.hidden" => ("hidden", "已隐藏"),
        "lb.withdrawn" => ("withdrawn", "已撤回"),
        "lb.tied" => (
            "not distinguishable from the leader",
            "与第一名无统计显著差异",
        ),
        "lb.ties_note" => (
            "≈ = not distinguishable from the leader: the 95 % paired bootstrap interval of the difference contains 0. Rank ranges read those intervals.",
            "≈ = 与第一名无统计显著差异：差值的 95% 配对自助法区间包含 0。排名范围由这些区间得出。",
        ),
        "lb.pending" => ("intervals still being computed:", "仍在计算的区间数："),
        "lb.rank_range" => ("possible ranks", "可能的排名范围"),
        "lb.filter" => ("search model and metadata…", "搜索模型和元数据…"),
        "lb.any_key" => ("any field", "任意字段"),
        "lb.all_status" => ("verified and reported", "已验证和自报"),
        "lb.only_verified" => ("verified only", "仅已验证"),
        "lb.only_reported" => ("reported only", "仅自报"),
        "lb.of" => ("of", "共"),
        "lb.prev" => ("← previous", "← 上一页"),
        "lb.next" => ("next →", "下一页 →"),
        "lb.page" => ("page", "页"),
        "lb.sort_hint" => ("click to sort", "点击排序"),
        "lb.export" => ("Export:", "导出："),
        "lb.console" => ("Owner console", "榜单管理"),
        "lb.your_entry" => ("Your entry: edit or withdraw it", "您的条目：编辑或撤回"),
        "lb.entry_token_label" => (
            "Entry token (kept in this browser):",
            "条目令牌（保存在本浏览器中）：",
        ),
        "lb.meta_lines" => (
            "Metadata, one key=value a line",
            "元数据，每行一个 key=value",
        ),
        "lb.withdraw" => ("Withdraw", "撤回"),
        "lb.withdraw_confirm" => (
            "Withdraw this entry from the board? Only the owner can see it afterwards.",
            "从榜单撤回该条目？之后只有榜单所有者能看到它。",
        ),
        "lb.check_receipt" => ("Check the signed receipt", "核验签名回执"),
        "lb.receipt_holds" => (
            "the server's signature holds over every listed number; key",
            "服务器的签名与所列全部数字相符；密钥",
        ),
        "lb.receipt_fails" => ("the receipt does not hold:", "回执不成立："),
        "lb.owner_token" => (
            "Owner token (kept in this browser):",
            "所有者令牌（保存在本浏览器中）：",
        ),
        "lb.console_open" => ("Open the console", "打开管理面板"),
        "lb.title" => ("Title", "标题"),
        "lb.description" => ("Description (Markdown)", "简介（Markdown）"),
        "lb.primary" => ("Ranked by", "排名依据"),
        "lb.shown_metrics" => ("Columns shown", "显示的列"),
        "lb.save" => ("Save", "保存"),
        "lb.saved" => ("Saved.", "已保存。"),
        "lb.done" => ("Done.", "已完成。"),
        "lb.hide" => ("Hide", "隐藏"),
        "lb.restore" => ("Restore", "恢复"),
        "lb.delete" => ("Delete", "删除"),
        "lb.delete_entry_confirm" => (
            "Delete this entry and the files only it holds? This cannot be undone.",
            "删除该条目及仅属于它的文件？此操作无法撤销。",
        ),
        "lb.visibility" => ("Visibility", "可见性"),
        "lb.actions" => ("Actions", "操作"),
        "lb.audit" => ("Audit log", "审计日志"),
        "lb.rotate" => ("Rotate the owner token", "更换所有者令牌"),
        "lb.rotate_confirm" => (
            "Make a new owner token? The current one stops working at once.",
            "生成新的所有者令牌？当前令牌将立即失效。",
        ),
        "lb.rotated" => ("A new owner token is in use.", "新的所有者令牌已启用。"),
        "lb.new_token" => (
            "New owner token (shown once; kept in this browser):",
            "新的所有者令牌（只显示一次；已保存在本浏览器中）：",
        ),
        "lb.forget" => ("Forget the token in this browser", "在本浏览器中忘记令牌"),
        "lb.delete_board" => ("Delete the board", "删除榜单"),
        "lb.delete_board_hint" => (
            "Every entry, file and the audit log go with it. Type the board's slug to confirm.",
            "所有条目、文件和审计日志都将一并删除。输入榜单的 slug 以确认。",
        ),
        "lb.tier" => ("Tier", "梯队"),
        "lb.tier_hint" => (
            "Rows of one tier (shaded alike) are statistically tied with the tier's first entry.",
            "同一梯队（底色相同）的条目与该梯队第一名在统计上并列。",
        ),
        "lb.resolution" => (
            "Resolution: differences usually within this board's noise (median half-width of the 95 % intervals):",
            "分辨率：通常落在本榜噪声之内的差异（95 % 区间半宽的中位数）：",
        ),
        "lb.smallest_resolved" => (
            "smallest difference from the leader resolved here:",
            "此处能分辨的与第一名的最小差异：",
        ),
        "lb.follow" => ("Follow:", "订阅："),
        "lb.feed" => (
            "Atom feed (new verified entries, new leaders)",
            "Atom 订阅（新的已验证条目、新的第一名）",
        ),
        "lb.embed" => ("Embed in a page:", "嵌入网页："),
        "lb.badge" => ("badge", "徽章"),
        "lb.badges" => ("Badge", "徽章"),
        "lb.compare" => ("Compare", "比较"),
        "lb.compare_pick" => (
            "Tick two verified entries to compare them sample by sample.",
            "勾选两个已验证的条目，逐样本比较。",
        ),
        "lb.compare_go" => ("Compare the two ticked entries", "比较勾选的两个条目"),
        "lb.compare_title" => ("Compare two entries", "比较两个条目"),
        "lb.compare_models" => ("model 1 = ", "模型 1 = "),
        "lb.compare_models2" => ("model 2 = ", "模型 2 = "),
        "lb.gold" => ("Gold files", "标准答案文件"),
        "lb.inputs" => ("Inputs", "输入文件"),
        "lb.entry" => ("entry", "条目"),
        "lb.scorer" => ("scorer", "评分程序"),
        "lb.metadata" => ("Metadata", "元数据"),
        "lb.report" => ("Report", "报告"),
        "lb.verify" => ("Verify in my browser", "在我的浏览器中验证"),
        "lb.verify_hint" => (
            "Downloads this entry's files and the board's gold, scores them here with the same code (WebAssembly), and compares every number bit for bit.",
            "下载该条目的文件和排行榜的标准答案，在本机用同一份代码（WebAssembly）重新计算，并逐位比较每个数字。",
        ),
        "lb.verifying" => ("Downloading and scoring…", "正在下载并计算…"),
        "lb.verified_ok" => (
            "✓ Verified in your browser: every number is identical to the published one.",
            "✓ 已在您的浏览器中验证：每个数字都与公布的数字完全一致。",
        ),
        "lb.verified_bad" => (
            "✗ Not identical: these values differ (published → this browser):",
            "✗ 不一致：以下数值不同（公布值 → 本浏览器）：",
        ),
        "lb.hash_bad" => (
            "✗ A downloaded file's SHA-256 is not the published one:",
            "✗ 下载文件的 SHA-256 与公布值不同：",
        ),
        "lb.sha_browser" => ("SHA-256 computed in this browser", "本浏览器计算的 SHA-256"),
        "lb.not_used" => ("not used by this entry", "此条目未使用"),
        "lb.not_used_hint" => (
            "Files \"not used by this entry\" are part of the board's gold that this entry's scoring does not read (e.g. SAS-Bench datasets beside prediction files); their SHA-256 is checked all the same.",
            "标为“此条目未使用”的文件属于排行榜的标准答案，但此条目的评分不读取它们（例如 SAS-Bench 预测文件旁的数据集文件）；它们的 SHA-256 同样经过核对。",
        ),
        "lb.scored_by" => ("scored here by scorebench", "本机评分程序 scorebench"),
        "lb.hidden_gold" => (
            "This board's gold is hidden, so its entries cannot be re-scored in the browser. Compare the published SHA-256 of the predictions with the file you hold (sha256sum).",
            "该排行榜的标准答案不公开，条目无法在浏览器中重新计算。请将公布的预测文件 SHA-256 与您手中的文件比对（sha256sum）。",
        ),
        "lb.reported_entry" => (
            "A reported entry: its numbers were imported from a table and cannot be verified.",
            "自报条目：数字从表格导入，无法验证。",
        ),
        "lb.no_report" => (
            "The server sent no report for this entry.",
            "服务器没有发送该条目的报告。",
        ),
        _ => return None,
    })
}
