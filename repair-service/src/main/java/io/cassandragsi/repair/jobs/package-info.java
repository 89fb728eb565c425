/**
 * Whole-index jobs (docs/design.md sections 9 and 10): {@link io.cassandragsi.repair.jobs.Rebuild}
 * backfills index tables from the base table, resumably; {@link io.cassandragsi.repair.jobs.Check}
 * compares index tables with the base table and, with {@code --fix}, rewrites what is missing or
 * stale and deletes orphans. One rebuild and one check serve both kinds of table.
 *
 * <p>The decisions are pure and tested without a node: the table's kind ({@code
 * io.cassandragsi.check.EntryRule} in {@code schemas}: which entries a row should have, how an
 * observed entry is judged, what a rebuild or a fix writes) and {@link
 * io.cassandragsi.repair.jobs.TokenRanges} (how the ring is cut). The rest streams rows, bounds
 * concurrency and records progress, over small storage interfaces ({@code
 * io.cassandragsi.check.ScanStores}, {@link io.cassandragsi.repair.jobs.JobWrites}) with a driver
 * adapter and in-memory twins. Entry points: {@link io.cassandragsi.repair.jobs.Jobs} and {@link
 * io.cassandragsi.repair.jobs.JobRegistry}, used by the {@code rebuild} / {@code check} commands
 * in {@code cli} and the admin endpoints in {@code http}; this package knows neither.
 */
package io.cassandragsi.repair.jobs;
