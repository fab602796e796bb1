// @ts-check
// The view model as the front end reads it: every block kind, inline run and payload field a renderer here reads,
// as JSDoc types (no code; `tsc --noEmit` checks every file of src against them in `npm run lint`). The view model
// is built in Python (explorer/present/viewmodel.py, whose docstring lists the kinds; explorer/present/blocks.py
// holds the same kinds as TypedDicts, named alike: `Block<Kind>`, the union `Block`); keys only the Python views
// read (`text`, `summary`, `fold`, `id`) are listed too, so the two can be compared.

// ---------------------------------------------------------------- shared pieces

/** A user line as the payload names it (the views write it FILE:LINE in data-origin).
 * @typedef {{file: string, line: number}} Origin */

/** A pane, or a diff's side: a compilation's stage (or one kernel of the kernels stage), on this rank or `rank`.
 * @typedef {{cid: string, stage: string, kernel?: string | null, rank?: number | null}} Target */

/** Where a click on a row leads (a rank's row, a refused recompile): a rank, its compilation and stage, a diff
 * source, user lines to light.
 * @typedef {{rank?: number | null, cid?: string, stage?: string, kernel?: string | null, diff?: Target | null,
 *   origins?: Origin[]}} Go */

/** Where a button moves its pane (a pane's state, partly).
 * @typedef {{stage?: string, kernel?: string | null, cid?: string, diff?: Target | null, mode?: string}} PaneGo */

// ---------------------------------------------------------------- inline runs

/** @typedef {{b: Runs}} RunB */
/** @typedef {{muted: Runs}} RunMuted */
/** @typedef {{a: string, href: string}} RunA */
/** @typedef {{chip: string}} RunChip */
/** A link to another pane (`kernel`: one kernel of the kernels stage, by its key).
 * @typedef {{go: {stage: string, kernel?: string | null, anchor?: string, cid?: string}, code: string}} RunGo */
/** A line of one of this pane's code blocks (a module outline's row).
 * @typedef {{line: number, key: string, code: string}} RunLine */
/** Code, linked to a user line when `origin` is given (its text then defaults to the origin).
 * @typedef {{code?: string, origin?: Origin | null}} RunCode */
/** @typedef {{bar: number}} RunBar */
/** @typedef {{br: true}} RunBr */

/** @typedef {RunB | RunMuted | RunA | RunChip | RunGo | RunLine | RunCode | RunBar | RunBr} RunObject */

/** Inline runs: a string (or number), a run, or a list of them.
 * @typedef {string | number | null | undefined | RunObject | RunList} Runs */
/** @typedef {Runs[]} RunList */

// ---------------------------------------------------------------- blocks

/** `text`: the plain form the text summary prints; `summary: false` leaves the block out of it.
 * @typedef {{text?: string | string[], summary?: boolean}} Plain */

/** A paragraph; `interactive`: only where the chain can be lit.
 * @typedef {Plain & {t: "p", r: Runs, cls?: string, interactive?: boolean}} BlockP */
/** A small heading.
 * @typedef {Plain & {t: "h", r: Runs, cls?: string}} BlockH */
/** A coloured box: cx-missing (why not), cx-bad (failed), cx-finding.
 * @typedef {Plain & {t: "note", r: Runs, cls: string}} BlockNote */

/** @typedef {Plain & {r: Runs, body?: Block[], origin?: Origin | null, cls?: string, go?: Go}} ListItem */
/** @typedef {{t: "list", items: ListItem[], ordered?: boolean, cls?: string, summary?: boolean}} BlockList */

/** A row: its cells; `th`: the first cell heads it; `line`: its line of the table's lineage block (a folded
 * table's rows name their own; default: its place + 1); `origin`: its own user line.
 * @typedef {Plain & {c: Runs[], th?: boolean, line?: number, cls?: string, origin?: Origin | null, go?: Go}}
 *   TableRow */
/** `key`: the lineage block of the rows.
 * @typedef {Plain & {t: "table", rows: TableRow[], head?: string[], cls?: string, key?: string, caption?: string}}
 *   BlockTable */

/** A text the report holds (`src`: its path in the compilation, "graph.code"), shown as lines. `key`: its lineage
 * block; `file`: the user file it is the source of (each line its own user line, from `first`); `marks`: rows
 * (1-based) to mark.
 * @typedef {{t: "code", key: string, src: string, lang?: string | null, first?: number, linenos?: boolean,
 *   marks?: number[], title?: string, sub?: string, file?: string, summary?: boolean}} BlockCode */

/** A group that opens; `lazy`: its body is drawn when first opened.
 * @typedef {Plain & {t: "details", s: Runs, body: Block[], open?: boolean, cls?: string, lazy?: boolean}}
 *   BlockDetails */
/** A header section (the fix list, recompiles).
 * @typedef {Plain & {t: "section", title: string, body: Block[], open?: boolean}} BlockSection */
/** A group (one kernel: data {kernel, ref}); `fold`: the summary a long static page folds it under.
 * @typedef {{t: "div", body: Block[], cls?: string, data?: Record<string, string>, id?: string, fold?: Runs,
 *   summary?: boolean}} BlockDiv */
/** An FX graph: its code and its picture; `folded`: the words over a folded picture (its boxes open).
 * @typedef {{t: "graph", stage: string, code: BlockCode, num_nodes?: number, folded?: string,
 *   summary?: boolean}} BlockGraph */
/** Bars: [label, value, text, colour].
 * @typedef {{t: "chart", title: string, rows: [string, number, string, string?][], summary?: boolean}}
 *   BlockChart */
/** A picture drawn in Python (the run's compile-time timeline); its elements' data-link="i" lead to links[i].
 * @typedef {Plain & {t: "svg", svg: string, title: string, links: Go[]}} BlockSvg */
/** Moves the pane (interactive views only).
 * @typedef {{t: "button", r: Runs, go: PaneGo, summary?: boolean}} BlockButton */

/** How a diff side reads as lines: a code block's text (after its heading line), or lines given as they are.
 * @typedef {{key?: string | null, src?: string, head?: string, rows?: string[]}} DiffSegment */
/** ["=", i, j, n] | ["-", i, n] | ["+", j, n] | ["~", i, j, n, [[prefix, suffix], ...]] | ["fold", i, j, n, words]
 * @typedef {["=", number, number, number] | ["-", number, number] | ["+", number, number]
 *   | ["~", number, number, number, [number, number][]] | ["fold", number, number, number, string]} DiffRow */
/** A pane against another, computed in Python (present/diff_view.py).
 * @typedef {{t: "diff", a: Target, b: Target, lines: [DiffSegment[], DiffSegment[]], del: string, add: string,
 *   note?: string, counts?: string, same?: string, rows?: DiffRow[], missing?: string}} BlockDiff */

/** @typedef {BlockP | BlockH | BlockNote | BlockList | BlockTable | BlockCode | BlockDetails | BlockSection
 *   | BlockDiv | BlockGraph | BlockChart | BlockButton | BlockDiff | BlockSvg} Block */

/** A diff the kernel made on request, or why it could not.
 * @typedef {BlockDiff | {error: string}} DiffResult */

// ---------------------------------------------------------------- the payload

/** A stage of the registry.
 * @typedef {{id: string, title: string, part: string, kind?: string, scope?: string, explanation?: string}} Stage */

/** @typedef {{parts?: Record<string, string>, missing?: Record<string, string>,
 *   ui?: Record<string, string | string[]>}} Labels */

/** A folded picture's box: the picture it opens, its title, the user lines it holds.
 * @typedef {{pid: string, title: string, origins?: Origin[]}} Box */

/** One compilation's view: its panes and what the views say about it.
 * @typedef {{cid?: string, label?: string, panes: Record<string, Block[]>, present?: string[],
 *   why?: Record<string, string>, why_report?: Record<string, string>, kernels?: string[], previous?: string | null,
 *   diffs?: BlockDiff[], findings?: (Block & {stage?: string})[], from_where?: Block[],
 *   pictures?: Record<string, string>, boxes?: Record<string, Record<string, Box>>,
 *   no_picture?: Record<string, string>}} CompView */

/** A compilation's line-level chain: per block, per line, its origins (1-based indexes; -1: glue; 0: none).
 * @typedef {{blocks?: Record<string, (number | number[])[]>, stages?: Record<string, string>,
 *   elements?: Record<string, Record<string, string>>}} CompLineage */
/** @typedef {{origins?: Origin[], compilations?: Record<string, CompLineage>}} Lineage */

/** A merged job's ranks (present/ranks.py).
 * @typedef {{rank: number, ranks: {rank: number, label: string, status?: string}[],
 *   compilations: {ids: Record<string, string>}[], blocks: Block[], diffs?: BlockDiff[]}} RanksInfo */

/** A compilation of the report's JSON: the texts a code block's `src` names live in it (by path).
 * @typedef {{compile_id: string, kernels?: {source?: any}[], [field: string]: any}} Comp */
/** The report's JSON, as far as the front end reads it.
 * @typedef {{capture?: {compilations?: Comp[]}, clinic?: {cells?: Record<string, string>}}} ReportJson */

/** What explorer/present/payload.py sends.
 * @typedef {{stages: Stage[], labels?: Labels, report?: ReportJson, views?: CompView[], lineage?: Lineage,
 *   pictures?: Record<string, string>, pictures_lazy?: boolean, deferred?: boolean, ranks?: RanksInfo | null,
 *   rank_payloads?: Record<string, Payload>, header?: {chips: [string, any][], body: Block[]},
 *   timing?: Block | null}} Payload */

export {};
