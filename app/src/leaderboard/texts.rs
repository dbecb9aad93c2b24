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
        "lb.webhooks" => ("Webhooks", "Webhook 通知"),
        "lb.webhooks_hint" => (
            "New entries and changes of the leading group are POSTed as JSON to each URL, signed with HMAC-SHA256 (header X-Scorebench-Signature-256), retried with backoff; only to hosts this server's operator allows.",
            "新条目和领先组的变化以 JSON 形式 POST 到每个 URL，用 HMAC-SHA256 签名（请求头 X-Scorebench-Signature-256），失败后退避重试；只发往本服务器运营者允许的主机。",
        ),
        "lb.webhook_secret" => (
            "Signing secret (shown once; keep it with the receiver):",
            "签名密钥（只显示一次；请保存在接收端）：",
        ),
        "lb.add_webhook" => ("Add the webhook", "添加 Webhook"),
        "lb.deliveries" => ("Deliveries", "投递记录"),
        "lb.event" => ("Event", "事件"),
        "lb.last_answer" => ("Last answer", "最近一次响应"),
        "lb.next_attempt" => ("Next attempt", "下次尝试"),
        "lb.import" => ("Import a published table", "导入已发表的结果表"),
        "lb.import_hint" => (
            "A Markdown document or CSV as published (prose around the table, several tables, **bold**, %, Avg. columns): its rows become reported entries, which cannot be verified. Check what each column holds and the entries below before importing.",
            "按原样导入 Markdown 文档或 CSV（表格前后可有正文、可有多个表格、**粗体**、%、平均列）：每行成为一条自报条目（无法验证）。导入前请核对每列的含义和下方的条目。",
        ),
        "lb.import_file" => ("File", "文件"),
        "lb.format" => ("Format", "格式"),
        "lb.table" => ("Table", "表格"),
        "lb.line" => ("line", "行"),
        "lb.scale" => ("Scale (100 for percentages)", "比例（百分数填 100）"),
        "lb.subset_metric" => ("Metric of subset and Avg. columns", "子集列和平均列的指标"),
        "lb.column" => ("Column", "列"),
        "lb.holds" => ("Holds", "含义"),
        "lb.map_model" => ("the model's name", "模型名称"),
        "lb.map_ignore" => ("ignore", "忽略"),
        "lb.map_overall" => ("overall value of the metric", "该指标的总体值"),
        "lb.map_subset" => ("the metric on a subset", "该指标在一个子集上的值"),
        "lb.map_meta" => ("metadata", "元数据"),
        "lb.import_preview" => ("Entries an import makes:", "导入将生成的条目数："),
        "lb.import_now" => ("Import these entries", "导入这些条目"),
        "lb.imported" => ("Entries imported:", "已导入条目数："),
        "lb.create" => ("Create a board", "创建排行榜"),
        "lb.by_spec" => (
            "A benchmark defined by a spec (its .toml among the gold files)",
            "由规格文件定义的基准（.toml 与标准答案文件一同上传）",
        ),
        "lb.by_spec_hint" => (
            "Add the spec's .toml to the gold files: the board's benchmark is the spec's key, and the board publishes the spec with its SHA-256 (docs/benchmark-spec.md).",
            "请将规格文件 .toml 加入标准答案文件：排行榜的基准即规格中的 key，排行榜会公布该规格文件及其 SHA-256（见 docs/benchmark-spec.md）。",
        ),
        "lb.choose_benchmark" => ("Choose a benchmark.", "请选择基准。"),
        "lb.gold_needed" => ("Choose the gold file(s).", "请选择标准答案文件。"),
        "lb.created" => ("Board created:", "排行榜已创建："),
        "lb.created_token" => (
            "Owner token (shown once; kept in this browser — copy it somewhere safe):",
            "所有者令牌（只显示一次；已保存在本浏览器中——请另行妥善保存）：",
        ),
        "lb.slug_field" => ("Slug (a-z, 0-9, -)", "标识（a-z、0-9、-）"),
        "lb.gold_files" => ("Gold file(s)", "标准答案文件"),
        "lb.gold_roles" => ("This benchmark's gold:", "该基准的标准答案："),
        "lb.as_competition" => (
            "A competition: the gold stays hidden, submissions are queued and scored by the server",
            "竞赛：标准答案不公开，提交进入队列由服务器评分",
        ),
        "lb.competition" => ("Competition", "竞赛"),
        "lb.phase" => ("Phase", "阶段"),
        "lb.opens" => ("Opens (UTC)", "开始（UTC）"),
        "lb.closes" => ("Closes (UTC)", "截止（UTC）"),
        "lb.daily_quota" => ("Submissions per team per day", "每队每日提交数"),
        "lb.total_quota" => ("Submissions per team in total", "每队总提交数"),
        "lb.public_share" => ("Public share of the items", "公开部分占比"),
        "lb.counts" => ("Entry that counts", "计入排名的提交"),
        "lb.counts_best" => ("best public score", "公开分最高的"),
        "lb.counts_latest" => ("latest", "最新的"),
        "lb.counts_chosen" => ("chosen by the team", "队伍选定的"),
        "lb.phase_hint" => (
            "Times as 2026-05-01T00:00:00Z; an empty field keeps its value. Failed and cancelled submissions do not count against a quota.",
            "时间格式如 2026-05-01T00:00:00Z；留空则保持原值。失败和取消的提交不计入配额。",
        ),
        "lb.save_phase" => ("Save the phase", "保存阶段设置"),
        "lb.close_phase" => ("Close the phase", "结束本阶段"),
        "lb.close_confirm" => (
            "Close the phase? The private scores are revealed and the ranking becomes final.",
            "结束本阶段？私有部分的分数将公开，排名成为最终结果。",
        ),
        "lb.phase_closed" => ("The phase is closed.", "本阶段已结束。"),
        "lb.teams" => ("Teams", "队伍"),
        "lb.team" => ("Team", "队伍"),
        "lb.team_name" => ("Team name", "队伍名称"),
        "lb.add_team" => ("Add the team", "添加队伍"),
        "lb.new_team_token" => (
            "Team token (shown once; give it to the team):",
            "队伍令牌（只显示一次；请交给该队伍）：",
        ),
        "lb.submissions" => ("Submissions", "提交数"),
        "lb.counting" => ("Counting against the quota", "计入配额"),
        "lb.queue" => ("Scoring queue", "评分队列"),
        "lb.refresh" => ("Refresh", "刷新"),
        "lb.position" => ("Place in queue", "排队位置"),
        "lb.attempts" => ("Attempts", "尝试次数"),
        "lb.public" => ("(public)", "（公开）"),
        "lb.private" => ("(private)", "（私有）"),
        "lb.submitted_at" => ("Submitted", "提交时间"),
        "lb.cancel" => ("Cancel", "取消"),
        "lb.choose" => ("Choose", "选定"),
        "lb.participate" => ("Participate", "参赛"),
        "lb.team_token" => (
            "Team token (kept in this browser):",
            "队伍令牌（保存在本浏览器中）：",
        ),
        "lb.prediction_files" => ("Prediction file(s)", "预测文件"),
        "lb.submit" => ("Submit", "提交"),
        "lb.submit_needs" => (
            "Give the model's name and choose the prediction file(s).",
            "请填写模型名称并选择预测文件。",
        ),
        "lb.queued_as" => ("queued as", "已排队："),
        "lb.my_submissions" => ("Our submissions", "本队的提交"),
        "lb.team_open" => ("Use the token", "使用此令牌"),
        "lb.team_added" => ("Added", "添加时间"),
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
