/**
 * Whole-index jobs (docs/design.md sections 9 and 10): {@link io.cassandragsi.repair.jobs.Rebuild}
 * backfills index tables from every stored base version, resumably; {@link
 * io.cassandragsi.repair.jobs.Check} compares index tables with the base table and, with
 * {@code --fix}, rewrites what is missing or stale at each version's TS and deletes orphans.
 *
 * <p>The decisions are pure and tested without a node: {@link io.cassandragsi.repair.jobs.TokenRanges}
 * (how the ring is cut) and {@link io.cassandragsi.repair.jobs.EntryCheck} (what an index entry
 * should hold given the versions of its base row, and how an observed entry differs). The rest
 * streams rows, bounds concurrency and records progress. Entry points: {@link
 * io.cassandragsi.repair.jobs.Jobs} and {@link io.cassandragsi.repair.jobs.JobRegistry}, used by
 * the {@code rebuild} / {@code check} commands in {@code cli} and the admin endpoints in
 * {@code http}; this package knows neither.
 */
package io.cassandragsi.repair.jobs;
