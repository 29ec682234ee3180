package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Pins the exact text of every statement of {@link SkipLockedStatements} for H2, PostgreSQL and
 * MariaDB with the prefix {@code sqlq_}, as jOOQ renders it. Runs against the renderer only; that the
 * same text runs on the servers is {@link StatementsOnServerTest}, and the plans it gets on a
 * 1,000,000-message backlog are in docs/backends/plans. A change of jOOQ version, dialect or
 * statement shows up here first.
 */
class SkipLockedStatementsTest {
    static final String PG_NOW = "CAST(FLOOR(EXTRACT(EPOCH FROM statement_timestamp()) * 1000) AS BIGINT)";
    static final String MARIADB_NOW = "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";
    static final String H2_NOW = "\"sqlq_now_ms\"()";

    static Map<String, String> postgres() {
        final String NOW = PG_NOW;
        Map<String, String> e = new LinkedHashMap<>();
        e.put("insert",
                "insert into \"sqlq_message\" (queue, priority, visible_at, enqueued_at, attempts, headers, payl"
                + "oad, group_key) values (?, ?, (("
                + NOW
                + ") + ?), ("
                + NOW
                + "), 0, ?, ?, ?)");
        e.put("insertMany",
                "with n as (select pg_notify(?, ?)) insert into \"sqlq_message\" (queue, priority, visible_at, enqueued_at, attempts, headers, payload, group_key) select ?, u.p, (" + NOW + ") + u.d, (" + NOW + "), 0, u.h, u.b, u.g from n, unnest(cast(? as int[]), cast(? as bigint[]), cast(? as text[]), cast(? as bytea[]), cast(? as varchar[])) with ordinality as u(p, d, h, b, g, o) order by u.o returning id");
        e.put("ensureQueue",
                "insert into \"sqlq_queue\" (name, created_at) values (?, (" + NOW + ")) on conflict do nothing");
        e.put("claimSelect",
                "select set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true), set_config('enable_sort', 'off', true),"
                + " set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true); "
                + "select id, priority, enqueued_at, attempts, headers, payload, ("
                + NOW
                + "), group_key from \"sqlq_message\" where (queue = ? and visible_at <= ("
                + NOW
                + ") and ((group_key is null or not exists (select 1 from \"sqlq_message\" g where g.queue = \"sql"
                + "q_message\".queue and g.group_key = \"sqlq_message\".group_key and g.id < \"sqlq_message\".id)))"
                + " and (not exists (select 1 from \"sqlq_paused_queue\" p where p.queue = \"sqlq_message\".queue))) order by priority desc, visible_at asc, (id + 0) asc fetch next ? rows only for update skip locked"
                + "; set local enable_bitmapscan to default; set local enable_seqscan to default; set local enable_sort to default;"
                + " set local enable_hashjoin to default; set local enable_mergejoin to default; set local plan_cache_mode to default");
        e.put("moveSelect",
                "select id, priority, enqueued_at, attempts, headers, payload, (" + NOW + "), group_key, visible_at, claimed_at from \"sqlq_message\" where (queue = ? and (visible_at <= (" + NOW + ") or lease_token is null or claimed_at < 0) and ((group_key is null or not exists (select 1 from \"sqlq_message\" g where g.queue = \"sqlq_message\".queue and g.group_key = \"sqlq_message\".group_key and g.id < \"sqlq_message\".id)))) order by id asc fetch next ? rows only for update skip locked");
        e.put("moveLease",
                "update \"sqlq_message\" set lease_token = ?, claimed_at = case when claimed_at < 0 then claimed_at else -visible_at end, visible_at = greatest(visible_at, ((" + NOW + ") + ?)) where id = ?");
        e.put("leaseUpdate",
                "update \"sqlq_message\" set lease_token = ?, attempts = (attempts + 1), claimed_at = (" + NOW
                + "), visible_at = ((" + NOW + ") + ?) where id = ?");
        e.put("deleteLeased",
                "delete from \"sqlq_message\" where (id = ? and lease_token = ? and queue = ?)");
        e.put("deleteById",
                "delete from \"sqlq_message\" where id = ?");
        e.put("leaseClaim",
                "select set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true), set_config('enable_sort', 'off', true),"
                + " set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true); "
                + "with c as (select id, visible_at as was, ctid as loc, lease_token as was_token, claimed_at as was_claimed from \"sqlq_message\" where (queue = ? and visible_at <= (" + NOW + ") and ((group_key is null or not exists (select 1 from \"sqlq_message\" g where g.queue = \"sqlq_message\".queue and g.group_key = \"sqlq_message\".group_key and g.id < \"sqlq_message\".id))) and (not exists (select 1 from \"sqlq_paused_queue\" p where p.queue = \"sqlq_message\".queue))) order by priority desc, visible_at asc, (id + 0) asc fetch next ? rows only for update skip locked) update \"sqlq_message\" m set lease_token = ?, attempts = m.attempts + 1, claimed_at = (" + NOW + "), visible_at = (" + NOW + ") + ? from c where m.ctid = c.loc and m.id = c.id returning m.id, m.priority, m.enqueued_at, m.attempts, m.headers, m.payload, (" + NOW + ") as claimed_now, m.group_key, c.was, c.was_token, c.was_claimed");
        e.put("ackAndLeaseClaim",
                "select set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true), set_config('enable_sort', 'off', true),"
                + " set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true); "
                + "delete from \"sqlq_message\" where (((queue = ?) is not false) and lease_token = ? and (id = any(cast(? as bigint[])))) returning id; "
                + "with c as (select id, visible_at as was, ctid as loc, lease_token as was_token, claimed_at as was_claimed from \"sqlq_message\" where (queue = ? and visible_at <= (" + NOW + ") and ((group_key is null or not exists (select 1 from \"sqlq_message\" g where g.queue = \"sqlq_message\".queue and g.group_key = \"sqlq_message\".group_key and g.id < \"sqlq_message\".id))) and (not exists (select 1 from \"sqlq_paused_queue\" p where p.queue = \"sqlq_message\".queue))) order by priority desc, visible_at asc, (id + 0) asc fetch next ? rows only for update skip locked) update \"sqlq_message\" m set lease_token = ?, attempts = m.attempts + 1, claimed_at = (" + NOW + "), visible_at = (" + NOW + ") + ? from c where m.ctid = c.loc and m.id = c.id returning m.id, m.priority, m.enqueued_at, m.attempts, m.headers, m.payload, (" + NOW + ") as claimed_now, m.group_key, c.was, c.was_token, c.was_claimed");
        e.put("unclaim", "update \"sqlq_message\" set lease_token = ?, attempts = attempts - 1, claimed_at = ?, visible_at = ?"
                + " where id = ? and lease_token = ?");
        e.put("idArrayPlan", "set local enable_seqscan = off");
        e.put("deleteByIds",
                "delete from \"sqlq_message\" where (id = any(cast(? as bigint[])))");
        e.put("deleteLeasedByIds",
                "delete from \"sqlq_message\" where (((queue = ?) is not false) and lease_token = ? and (id = any(cast(? as bigint[]))))");
        e.put("ackByClaim",
                "select set_config('enable_seqscan', 'off', true); delete from \"sqlq_message\" where (((queue = ?) is not false)"
                + " and lease_token = ? and (id = any(cast(? as bigint[])))) returning id");
        e.put("historyLeased",
                "insert into \"sqlq_history\" (id, queue, enqueued_at, started_at, finished_at, attempts, "
                + "outcome, detail, payload_preview) select id, queue, enqueued_at, coalesce(claimed_at, (" + NOW + ")), (" + NOW
                + "), attempts, ?, ?, substring(payload from 1 for 64) from \"sqlq_message\" where (id = ? and lease_token = ? and queue = ?)");
        e.put("historyById",
                "insert into \"sqlq_history\" (id, queue, enqueued_at, started_at, finished_at, attempts, "
                + "outcome, detail, payload_preview) select id, queue, enqueued_at, ?, (" + NOW
                + "), (attempts + 1), ?, ?, substring(payload from 1 for 64) from \"sqlq_message\" where id = ?");
        e.put("nackLeased",
                "update \"sqlq_message\" set visible_at = ((" + NOW
                + ") + ?), lease_token = null, last_error = ? where (id = ? and lease_token = ? and queue = ?)");
        e.put("nackById",
                "update \"sqlq_message\" set visible_at = ((" + NOW
                + ") + ?), attempts = (attempts + 1), lease_token = null, last_error = ? where id = ?");
        e.put("extend",
                "update \"sqlq_message\" set visible_at = ((" + NOW + ") + ?) where (id = ? and lease_token = ? and queue = ?)");
        e.put("releaseLeased",
                "update \"sqlq_message\" set visible_at = (" + NOW
                + "), lease_token = null, attempts = (attempts - 1) where (id = ? and lease_token = ? and queue = ?)");
        e.put("deadLetterLeased",
                "insert into \"sqlq_dead_letter\" (id, queue, priority, enqueued_at, attempts, headers, payload,"
                + " reason, dead_at, group_key) select id, queue, priority, enqueued_at, attempts, headers, payloa"
                + "d, ?, ("
                + NOW
                + "), group_key from \"sqlq_message\" where (id = ? and lease_token = ? and queue = ?)");
        e.put("deadLetterById",
                "insert into \"sqlq_dead_letter\" (id, queue, priority, enqueued_at, attempts, headers, payload,"
                + " reason, dead_at, group_key) select id, queue, priority, enqueued_at, (attempts + 1), headers, "
                + "payload, ?, ("
                + NOW
                + "), group_key from \"sqlq_message\" where id = ?");
        e.put("setAttempts",
                "update \"sqlq_message\" set attempts = ? where id = ?");
        e.put("deadLetterMoved",
                "insert into \"sqlq_dead_letter\" (id, queue, priority, enqueued_at, attempts, headers, payload, reason, dead_at, group_key)"
                + " select id, queue, priority, enqueued_at, attempts, headers, payload, ?, (" + NOW + "), group_key from \"sqlq_message\" where id = ?");
        e.put("stats",
                "select count(*), sum(case when (visible_at > (select (" + NOW
                + ")) and lease_token is not null) then 1 else 0 end), sum(case when (visible_at > (select (" + NOW
                + ")) and lease_token is null) then 1 else 0 end), min(case when visible_at <= (select (" + NOW
                + ")) then enqueued_at end), (select (" + NOW + ")), (select count(*) from \"sqlq_dead_letter\" where queue = ?)"
                + ", (select count(*) from \"sqlq_history\" where queue = ?)"
                + " from \"sqlq_message\" where queue = ?");
        e.put("listHistory",
                "select id, enqueued_at, started_at, finished_at, duration_ms, attempts, outcome, detail, payload_preview "
                + "from \"sqlq_history\" where queue = ? order by history_id desc fetch next ? rows only");
        e.put("listDead",
                "select id, priority, enqueued_at, attempts, headers, payload, reason, dead_at, group_key from \""
                + "sqlq_dead_letter\" where queue = ? order by dead_at asc, id asc fetch next ? rows only");
        e.put("lockDeadIds",
                "select id from \"sqlq_dead_letter\" where queue = ? order by id for update");
        // issue 31: listings read previews and lengths; a requeue of given ids locks only those rows
        e.put("listDeadSummaries", "select id, priority, enqueued_at, attempts, headers, substring(payload from 1 for 256), reason,"
                + " dead_at, group_key, octet_length(payload) from \"sqlq_dead_letter\" where queue = ? order by dead_at asc, id asc"
                + " fetch next ? rows only");
        e.put("listReady",
                "select id, priority, enqueued_at, visible_at, attempts, lease_token, claimed_at, headers, substring(payload from 1 for 256), octet_length(payload), group_key, last_error, (" + NOW + ") from \"sqlq_message\" where (queue = ? and id > ? and visible_at <= (" + NOW + ")) order by id asc fetch next ? rows only");
        e.put("listDelayed",
                "select id, priority, enqueued_at, visible_at, attempts, lease_token, claimed_at, headers, substring(payload from 1 for 256), octet_length(payload), group_key, last_error, (" + NOW + ") from \"sqlq_message\" where (queue = ? and id > ? and visible_at > (" + NOW + ") and lease_token is null) order by id asc fetch next ? rows only");
        e.put("listInFlight",
                "select id, priority, enqueued_at, visible_at, attempts, lease_token, claimed_at, headers, substring(payload from 1 for 256), octet_length(payload), group_key, last_error, (" + NOW + ") from \"sqlq_message\" where (queue = ? and id > ? and visible_at > (" + NOW + ") and lease_token is not null) order by id asc fetch next ? rows only");
        e.put("messageById",
                "select id, priority, enqueued_at, visible_at, attempts, lease_token, claimed_at, headers, substring(payload from 1 for 256), octet_length(payload), group_key, last_error, (" + NOW + ") from \"sqlq_message\" where (queue = ? and id = ?)");
        e.put("deadSummaryById", "select id, priority, enqueued_at, attempts, headers, substring(payload from 1 for 256), reason,"
                + " dead_at, group_key, octet_length(payload) from \"sqlq_dead_letter\" where (queue = ? and id = ?)");
        e.put("lockDeadId", "select id from \"sqlq_dead_letter\" where (queue = ? and id = ?) for update");
        e.put("requeueDead",
                "insert into \"sqlq_message\" (id, queue, priority, visible_at, enqueued_at, attempts, headers, pa"
                + "yload, last_error, group_key) select id, queue, priority, ("
                + NOW
                + "), enqueued_at, 0, headers, payload, reason, group_key from \"sqlq_dead_letter\" where (queue = ?"
                + " and id = ? and group_key is null)");
        e.put("requeueDeadGrouped",
                "insert into \"sqlq_message\" (queue, priority, visible_at, enqueued_at, attempts, headers, payloa"
                + "d, last_error, group_key) select queue, priority, ("
                + NOW
                + "), enqueued_at, 0, headers, payload, reason, group_key from \"sqlq_dead_letter\" where (queue = ?"
                + " and id = ? and group_key is not null)");
        e.put("deleteDead",
                "delete from \"sqlq_dead_letter\" where (queue = ? and id = ?)");
        e.put("purgeDead",
                "delete from \"sqlq_dead_letter\" where queue = ?");
        e.put("purgeMessages",
                "delete from \"sqlq_message\" where queue = ?");
        e.put("purgeHistory",
                "delete from \"sqlq_history\" where queue = ?");
        e.put("pruneHistoryAge",
                "delete from \"sqlq_history\" where (queue = ? and finished_at <= ((CAST(FLOOR(EXTRACT(EPOCH FROM statement_timestamp()) * 1000) AS BIGINT)) - ?))");
        e.put("historyCutoff",
                "select history_id from \"sqlq_history\" where queue = ? order by history_id desc offset ? rows fetch next 1 rows only");
        e.put("pruneHistoryRows",
                "delete from \"sqlq_history\" where (queue = ? and history_id <= ?)");
        e.put("historyForMove",
                "select history_id, id, enqueued_at, started_at, finished_at, duration_ms, attempts, outcome, detail, payload_preview from \"sqlq_history\" where queue = ? order by history_id asc fetch next ? rows only");
        e.put("insertMovedHistory",
                "insert into \"sqlq_history\" (id, queue, enqueued_at, started_at, finished_at, attempts, outcome, detail, payload_preview) select ?, ?, ?, ?, ?, ?, ?, ?, ? where not exists (select 1 as one from \"sqlq_history\" where (queue = ? and id = ? and started_at = ? and finished_at = ? and outcome = ?))");
        e.put("deleteHistoryRow",
                "delete from \"sqlq_history\" where (queue = ? and history_id = ?)");
        e.put("deleteQueue",
                "delete from \"sqlq_queue\" where name = ?");
        e.put("listQueues",
                "select name from \"sqlq_queue\" order by name");
        e.put("rawInsert",
                "insert into \"sqlq_message\" (queue, priority, visible_at, enqueued_at, attempts, headers, "
                + "payload) values (?, ?, (" + NOW + "), (" + NOW + "), 0, ?, ?)");
        e.put("leaseQueue", "select queue from \"sqlq_message\" where (id = ? and lease_token = ?)");
        e.put("deleteExpiredKey",
                "delete from \"sqlq_dedupe_key\" where (queue = ? and dedupe_key = ? and expires_at <= (" + NOW + "))");
        e.put("insertKey",
                "insert into \"sqlq_dedupe_key\" (queue, dedupe_key, expires_at) values (?, ?, ((" + NOW + ") + ?)) on conflict do nothing");
        e.put("setKeyMessage",
                "update \"sqlq_dedupe_key\" set message_id = ? where (queue = ? and dedupe_key = ?)");
        e.put("listKeys",
                "select dedupe_key, message_id, (expires_at - (" + NOW + ")) from \"sqlq_dedupe_key\" where (queue = ? and dedupe_key > ?"
                + " and expires_at > (" + NOW + ") and message_id is not null) order by dedupe_key asc fetch next ? rows only");
        e.put("keyMessage",
                "select message_id from \"sqlq_dedupe_key\" where (queue = ? and dedupe_key = ?) for share");
        e.put("deleteExpiredKeys",
                "delete from \"sqlq_dedupe_key\" where (queue, dedupe_key) in (select queue, dedupe_key from \"sqlq_dedupe_key\" where expires_at <= (" + NOW + ") order by expires_at fetch next ? rows only)");
        e.put("deleteKeys",
                "delete from \"sqlq_dedupe_key\" where queue = ?");
        e.put("historyBuckets",
                "select b, outcome, count(*), avg(lat) from (select floor(finished_at / ?) as b, outcome,"
                + " finished_at - enqueued_at as lat from \"sqlq_history\" where queue = ? and finished_at >= ?)"
                + " t group by b, outcome order by b, outcome");
        e.put("pauseQueue",
                "insert into \"sqlq_paused_queue\" (queue, paused_at) select ?, (" + NOW + ") where not exists (select 1 as one from \"sqlq_paused_queue\" where queue = ?)");
        e.put("resumeQueue",
                "delete from \"sqlq_paused_queue\" where queue = ?");
        e.put("queuePaused",
                "select 1 as one from \"sqlq_paused_queue\" where queue = ?");
        e.put("dropSchema[0]",
                "drop table if exists \"sqlq_paused_queue\"");
        e.put("dropSchema[1]",
                "drop table if exists \"sqlq_dedupe_key\"");
        e.put("dropSchema[2]",
                "drop table if exists \"sqlq_history\"");
        e.put("dropSchema[3]",
                "drop table if exists \"sqlq_dead_letter\"");
        e.put("dropSchema[4]",
                "drop table if exists \"sqlq_message\"");
        e.put("dropSchema[5]",
                "drop table if exists \"sqlq_queue\"");
        e.put("dropSchema[6]",
                "drop table if exists \"sqlq_schema_history\"");
        e.put("notify",
                "select pg_notify(?, ?)");
        e.put("listen",
                "listen \"sqlq_wakeup\"");
        e.put("oldestTransactions",
                "select pid, usename, host(client_addr), application_name, state,"
                + " cast(floor(extract(epoch from (clock_timestamp() - xact_start)) * 1000) as bigint),"
                + " left(query, 200), coalesce(age(backend_xmin), age(backend_xid), -1)"
                + " from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null"
                + " and (backend_xmin is not null or backend_xid is not null) and backend_type <> 'autovacuum worker'"
                + " order by xact_start, pid fetch first ? rows only");

        return e;
    }

    static Map<String, String> mariadb() {
        final String NOW = MARIADB_NOW;
        Map<String, String> e = new LinkedHashMap<>();
        e.put("insert",
                "insert into `sqlq_message` (queue, priority, visible_at, enqueued_at, attempts, headers, payloa"
                + "d, group_key) values (?, ?, (("
                + NOW
                + ") + ?), ("
                + NOW
                + "), 0, ?, ?, ?)");
        e.put("insertReturning", e.get("insert") + " returning id");
        e.put("ensureQueue",
                "insert ignore into `sqlq_queue` (name, created_at) values (?, (" + NOW + "))");
        e.put("claimSelect",
                "select id, priority, enqueued_at, attempts, headers, payload, ("
                + NOW
                + "), group_key from `sqlq_message` where (queue = ? and visible_at <= ("
                + NOW
                + ") and ((group_key is null or not exists (select 1 from `sqlq_message` g where g.queue = `sqlq_m"
                + "essage`.queue and g.group_key = `sqlq_message`.group_key and g.id < `sqlq_message`.id))) and (not exists (select 1 from `sqlq_paused_queue` p where p.queue = `sqlq_message`.queue))) order"
                + " by priority desc, visible_at asc, id asc fetch next ? rows only for update skip locked");
        e.put("moveSelect",
                "select id, priority, enqueued_at, attempts, headers, payload, (" + NOW + "), group_key, visible_at, claimed_at from `sqlq_message` where (queue = ? and (visible_at <= (" + NOW + ") or lease_token is null or claimed_at < 0) and ((group_key is null or not exists (select 1 from `sqlq_message` g where g.queue = `sqlq_message`.queue and g.group_key = `sqlq_message`.group_key and g.id < `sqlq_message`.id)))) order by id asc fetch next ? rows only for update skip locked");
        e.put("moveLease",
                "update `sqlq_message` set lease_token = ?, claimed_at = case when claimed_at < 0 then claimed_at else -visible_at end, visible_at = greatest(visible_at, ((" + NOW + ") + ?)) where id = ?");
        e.put("leaseUpdate",
                "update `sqlq_message` set lease_token = ?, attempts = (attempts + 1), claimed_at = (" + NOW
                + "), visible_at = ((" + NOW + ") + ?) where id = ?");
        e.put("deleteLeased",
                "delete from `sqlq_message` where (id = ? and lease_token = ? and queue = ?)");
        e.put("deleteById",
                "delete from `sqlq_message` where id = ?");
        e.put("historyLeased",
                "insert into `sqlq_history` (id, queue, enqueued_at, started_at, finished_at, attempts, "
                + "outcome, detail, payload_preview) select id, queue, enqueued_at, coalesce(claimed_at, (" + NOW + ")), (" + NOW
                + "), attempts, ?, ?, substring(payload from 1 for 64) from `sqlq_message` where (id = ? and lease_token = ? and queue = ?)");
        e.put("historyById",
                "insert into `sqlq_history` (id, queue, enqueued_at, started_at, finished_at, attempts, "
                + "outcome, detail, payload_preview) select id, queue, enqueued_at, ?, (" + NOW
                + "), (attempts + 1), ?, ?, substring(payload from 1 for 64) from `sqlq_message` where id = ?");
        e.put("nackLeased",
                "update `sqlq_message` set visible_at = ((" + NOW
                + ") + ?), lease_token = null, last_error = ? where (id = ? and lease_token = ? and queue = ?)");
        e.put("nackById",
                "update `sqlq_message` set visible_at = ((" + NOW
                + ") + ?), attempts = (attempts + 1), lease_token = null, last_error = ? where id = ?");
        e.put("extend",
                "update `sqlq_message` set visible_at = ((" + NOW + ") + ?) where (id = ? and lease_token = ? and queue = ?)");
        e.put("releaseLeased",
                "update `sqlq_message` set visible_at = (" + NOW
                + "), lease_token = null, attempts = (attempts - 1) where (id = ? and lease_token = ? and queue = ?)");
        e.put("deadLetterLeased",
                "insert into `sqlq_dead_letter` (id, queue, priority, enqueued_at, attempts, headers, payload, r"
                + "eason, dead_at, group_key) select id, queue, priority, enqueued_at, attempts, headers, payload,"
                + " ?, ("
                + NOW
                + "), group_key from `sqlq_message` where (id = ? and lease_token = ? and queue = ?)");
        e.put("deadLetterById",
                "insert into `sqlq_dead_letter` (id, queue, priority, enqueued_at, attempts, headers, payload, r"
                + "eason, dead_at, group_key) select id, queue, priority, enqueued_at, (attempts + 1), headers, pa"
                + "yload, ?, ("
                + NOW
                + "), group_key from `sqlq_message` where id = ?");
        e.put("setAttempts",
                "update `sqlq_message` set attempts = ? where id = ?");
        e.put("deadLetterMoved",
                "insert into `sqlq_dead_letter` (id, queue, priority, enqueued_at, attempts, headers, payload, reason, dead_at, group_key)"
                + " select id, queue, priority, enqueued_at, attempts, headers, payload, ?, (" + NOW + "), group_key from `sqlq_message` where id = ?");
        e.put("stats",
                "select count(*), sum(case when (visible_at > ("
                + NOW + ") and lease_token is not null) then 1 else 0 end), sum(case when (visible_at > (" + NOW
                + ") and lease_token is null) then 1 else 0 end), min(case when visible_at <= (" + NOW
                + ") then enqueued_at end), (" + NOW + "), (select count(*) from `sqlq_dead_letter` where queue = ?)"
                + ", (select count(*) from `sqlq_history` where queue = ?)"
                + " from `sqlq_message` where queue = ?");
        e.put("listHistory",
                "select id, enqueued_at, started_at, finished_at, duration_ms, attempts, outcome, detail, payload_preview "
                + "from `sqlq_history` where queue = ? order by history_id desc fetch next ? rows only");
        e.put("listDead",
                "select id, priority, enqueued_at, attempts, headers, payload, reason, dead_at, group_key from `"
                + "sqlq_dead_letter` where queue = ? order by dead_at asc, id asc fetch next ? rows only");
        e.put("lockDeadIds",
                "select id from `sqlq_dead_letter` where queue = ? order by id for update");
        e.put("listDeadSummaries", "select id, priority, enqueued_at, attempts, headers, substring(payload from 1 for 256), reason,"
                + " dead_at, group_key, octet_length(payload) from `sqlq_dead_letter` where queue = ? order by dead_at asc, id asc"
                + " fetch next ? rows only");
        e.put("listReady",
                "select id, priority, enqueued_at, visible_at, attempts, lease_token, claimed_at, headers, substring(payload from 1 for 256), octet_length(payload), group_key, last_error, (" + NOW + ") from `sqlq_message` where (queue = ? and id > ? and visible_at <= (" + NOW + ")) order by id asc fetch next ? rows only");
        e.put("listDelayed",
                "select id, priority, enqueued_at, visible_at, attempts, lease_token, claimed_at, headers, substring(payload from 1 for 256), octet_length(payload), group_key, last_error, (" + NOW + ") from `sqlq_message` where (queue = ? and id > ? and visible_at > (" + NOW + ") and lease_token is null) order by id asc fetch next ? rows only");
        e.put("listInFlight",
                "select id, priority, enqueued_at, visible_at, attempts, lease_token, claimed_at, headers, substring(payload from 1 for 256), octet_length(payload), group_key, last_error, (" + NOW + ") from `sqlq_message` where (queue = ? and id > ? and visible_at > (" + NOW + ") and lease_token is not null) order by id asc fetch next ? rows only");
        e.put("messageById",
                "select id, priority, enqueued_at, visible_at, attempts, lease_token, claimed_at, headers, substring(payload from 1 for 256), octet_length(payload), group_key, last_error, (" + NOW + ") from `sqlq_message` where (queue = ? and id = ?)");
        e.put("deadSummaryById", "select id, priority, enqueued_at, attempts, headers, substring(payload from 1 for 256), reason,"
                + " dead_at, group_key, octet_length(payload) from `sqlq_dead_letter` where (queue = ? and id = ?)");
        e.put("lockDeadId", "select id from `sqlq_dead_letter` where (queue = ? and id = ?) for update");
        e.put("requeueDead",
                "insert into `sqlq_message` (id, queue, priority, visible_at, enqueued_at, attempts, headers, pa"
                + "yload, last_error, group_key) select id, queue, priority, ("
                + NOW
                + "), enqueued_at, 0, headers, payload, reason, group_key from `sqlq_dead_letter` where (queue = ?"
                + " and id = ? and group_key is null)");
        e.put("requeueDeadGrouped",
                "insert into `sqlq_message` (queue, priority, visible_at, enqueued_at, attempts, headers, payloa"
                + "d, last_error, group_key) select queue, priority, ("
                + NOW
                + "), enqueued_at, 0, headers, payload, reason, group_key from `sqlq_dead_letter` where (queue = ?"
                + " and id = ? and group_key is not null)");
        e.put("deleteDead",
                "delete from `sqlq_dead_letter` where (queue = ? and id = ?)");
        e.put("purgeDead",
                "delete from `sqlq_dead_letter` where queue = ?");
        e.put("purgeMessages",
                "delete from `sqlq_message` where queue = ?");
        e.put("purgeHistory",
                "delete from `sqlq_history` where queue = ?");
        e.put("pruneHistoryAge",
                "delete from `sqlq_history` where (queue = ? and finished_at <= (((TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)) - ?))");
        e.put("historyCutoff",
                "select history_id from `sqlq_history` where queue = ? order by history_id desc offset ? rows fetch next 1 rows only");
        e.put("pruneHistoryRows",
                "delete from `sqlq_history` where (queue = ? and history_id <= ?)");
        e.put("historyForMove",
                "select history_id, id, enqueued_at, started_at, finished_at, duration_ms, attempts, outcome, detail, payload_preview from `sqlq_history` where queue = ? order by history_id asc fetch next ? rows only");
        e.put("insertMovedHistory",
                "insert into `sqlq_history` (id, queue, enqueued_at, started_at, finished_at, attempts, outcome, detail, payload_preview) select ?, ?, ?, ?, ?, ?, ?, ?, ? where not exists (select 1 as one from `sqlq_history` where (queue = ? and id = ? and started_at = ? and finished_at = ? and outcome = ?))");
        e.put("deleteHistoryRow",
                "delete from `sqlq_history` where (queue = ? and history_id = ?)");
        e.put("deleteQueue",
                "delete from `sqlq_queue` where name = ?");
        e.put("listQueues",
                "select name from `sqlq_queue` order by name");
        e.put("rawInsert",
                "insert into `sqlq_message` (queue, priority, visible_at, enqueued_at, attempts, headers, "
                + "payload) values (?, ?, (" + NOW + "), (" + NOW + "), 0, ?, ?)");
        e.put("leaseQueue", "select queue from `sqlq_message` where (id = ? and lease_token = ?)");
        e.put("deleteExpiredKey",
                "delete from `sqlq_dedupe_key` where (queue = ? and dedupe_key = ? and expires_at <= (" + NOW + "))");
        e.put("insertKey",
                "insert ignore into `sqlq_dedupe_key` (queue, dedupe_key, expires_at) values (?, ?, ((" + NOW + ") + ?))");
        e.put("setKeyMessage",
                "update `sqlq_dedupe_key` set message_id = ? where (queue = ? and dedupe_key = ?)");
        e.put("listKeys",
                "select dedupe_key, message_id, (expires_at - (" + NOW + ")) from `sqlq_dedupe_key` where (queue = ? and dedupe_key > ?"
                + " and expires_at > (" + NOW + ") and message_id is not null) order by dedupe_key asc fetch next ? rows only");
        e.put("keyMessage",
                "select message_id from `sqlq_dedupe_key` where (queue = ? and dedupe_key = ?) lock in share mode");
        e.put("deleteExpiredKeys",
                "delete from `sqlq_dedupe_key` where expires_at <= (" + NOW + ") order by expires_at limit ?");
        e.put("deleteKeys",
                "delete from `sqlq_dedupe_key` where queue = ?");
        e.put("historyBuckets",
                "select b, outcome, count(*), avg(lat) from (select floor(finished_at / ?) as b, outcome,"
                + " finished_at - enqueued_at as lat from `sqlq_history` where queue = ? and finished_at >= ?)"
                + " t group by b, outcome order by b, outcome");
        e.put("pauseQueue",
                "insert into `sqlq_paused_queue` (queue, paused_at) select ?, (" + NOW + ") where not exists (select 1 as one from `sqlq_paused_queue` where queue = ?)");
        e.put("resumeQueue",
                "delete from `sqlq_paused_queue` where queue = ?");
        e.put("queuePaused",
                "select 1 as one from `sqlq_paused_queue` where queue = ?");
        e.put("dropSchema[0]",
                "drop table if exists `sqlq_paused_queue`");
        e.put("dropSchema[1]",
                "drop table if exists `sqlq_dedupe_key`");
        e.put("dropSchema[2]",
                "drop table if exists `sqlq_history`");
        e.put("dropSchema[3]",
                "drop table if exists `sqlq_dead_letter`");
        e.put("dropSchema[4]",
                "drop table if exists `sqlq_message`");
        e.put("dropSchema[5]",
                "drop table if exists `sqlq_queue`");
        e.put("dropSchema[6]",
                "drop table if exists `sqlq_schema_history`");
        e.put("oldestTransactions",
                "SET STATEMENT time_zone = 'SYSTEM' FOR"
                + " select t.trx_mysql_thread_id, p.USER, p.HOST, null, concat_ws(': ', p.COMMAND, nullif(p.STATE, '')),"
                + " timestampdiff(SECOND, t.trx_started, now()) * 1000,"
                + " left(coalesce(t.trx_query, p.INFO), 200),"
                + " coalesce((select VARIABLE_VALUE from information_schema.GLOBAL_STATUS where VARIABLE_NAME = 'INNODB_HISTORY_LIST_LENGTH'), -1)"
                + " from information_schema.INNODB_TRX t left join information_schema.PROCESSLIST p on p.ID = t.trx_mysql_thread_id"
                + " where t.trx_mysql_thread_id <> connection_id() order by t.trx_started, t.trx_mysql_thread_id limit ?");

        return e;
    }

    static Map<String, String> h2() {
        final String NOW = H2_NOW;
        Map<String, String> e = new LinkedHashMap<>();
        e.put("insert",
                "insert into \"sqlq_message\" (queue, priority, visible_at, enqueued_at, attempts, headers, payl"
                + "oad, group_key) values (?, ?, (("
                + NOW
                + ") + cast(? as bigint)), ("
                + NOW
                + "), 0, ?, ?, ?)");
        e.put("insertReturning", "select id from final table (" + e.get("insert") + ")");
        e.put("ensureQueue",
                "insert into \"sqlq_queue\" (name, created_at) select cast(? as varchar), (" + NOW
                + ") where not exists (select 1 one from \"sqlq_queue\" where name = cast(? as varchar))");
        e.put("claimSelect",
                "select id, priority, enqueued_at, attempts, headers, payload, ("
                + NOW
                + "), group_key from \"sqlq_message\" where ((id = any(cast(? as bigint array))) and visible_at <="
                + " ("
                + NOW
                + ") and ((group_key is null or not exists (select 1 from \"sqlq_message\" g where g.queue = \"sql"
                + "q_message\".queue and g.group_key = \"sqlq_message\".group_key and g.id < \"sqlq_message\".id)))"
                + " and (not exists (select 1 from \"sqlq_paused_queue\" p where p.queue = \"sqlq_message\".queue))) order by priority desc, visible_at asc, id asc for update skip locked");
        e.put("claimCandidates",
                "select id from \"sqlq_message\" where (queue = cast(? as varchar) and visible_at <= ("
                + NOW
                + ") and ((group_key is null or not exists (select 1 from \"sqlq_message\" g where g.queue = \"sql"
                + "q_message\".queue and g.group_key = \"sqlq_message\".group_key and g.id < \"sqlq_message\".id)))"
                + " and (not exists (select 1 from \"sqlq_paused_queue\" p where p.queue = \"sqlq_message\".queue))) order by queue asc, priority desc, visible_at asc, id asc fetch next ? rows only");
        e.put("moveSelect",
                "select id, priority, enqueued_at, attempts, headers, payload, (" + NOW + "), group_key, visible_at, claimed_at from \"sqlq_message\" where ((id = any(cast(? as bigint array))) and (visible_at <= (" + NOW + ") or lease_token is null or claimed_at < 0) and ((group_key is null or not exists (select 1 from \"sqlq_message\" g where g.queue = \"sqlq_message\".queue and g.group_key = \"sqlq_message\".group_key and g.id < \"sqlq_message\".id)))) order by id asc for update skip locked");
        e.put("moveCandidates",
                "select id from \"sqlq_message\" where (queue = cast(? as varchar) and (visible_at <= (" + NOW + ") or lease_token is null or claimed_at < 0) and ((group_key is null or not exists (select 1 from \"sqlq_message\" g where g.queue = \"sqlq_message\".queue and g.group_key = \"sqlq_message\".group_key and g.id < \"sqlq_message\".id)))) order by id asc fetch next ? rows only");
        e.put("moveLease",
                "update \"sqlq_message\" set lease_token = ?, claimed_at = case when claimed_at < 0 then claimed_at else -visible_at end, visible_at = greatest(visible_at, ((" + NOW + ") + cast(? as bigint))) where id = cast(? as bigint)");
        e.put("leaseUpdate",
                "update \"sqlq_message\" set lease_token = ?, attempts = (attempts + 1), claimed_at = (" + NOW
                + "), visible_at = ((" + NOW + ") + cast(? as bigint)) where id = cast(? as bigint)");
        e.put("deleteLeased",
                "delete from \"sqlq_message\" where (id = cast(? as bigint) and lease_token = cast(? as "
                + "bigint) and queue = cast(? as varchar))");
        e.put("deleteById",
                "delete from \"sqlq_message\" where id = cast(? as bigint)");
        e.put("leaseUpdateByIds",
                "update \"sqlq_message\" set lease_token = ?, attempts = (attempts + 1), claimed_at = (" + NOW + "), visible_at = ((" + NOW + ") + cast(? as bigint)) where (id = any(cast(? as bigint array)))");
        e.put("deleteByIds",
                "delete from \"sqlq_message\" where (id = any(cast(? as bigint array)))");
        e.put("deleteLeasedByIds",
                "delete from \"sqlq_message\" where (((queue = cast(? as varchar)) is not false) and lease_token = cast(? as bigint) and (id = any(cast(? as bigint array))))");
        e.put("historyLeased",
                "insert into \"sqlq_history\" (id, queue, enqueued_at, started_at, finished_at, attempts, "
                + "outcome, detail, payload_preview) select id, queue, enqueued_at, coalesce(claimed_at, (" + NOW + ")), (" + NOW
                + "), attempts, cast(? as varchar), cast(? as varchar), substring(payload from 1 for 64) from \"sqlq_message\" where (id = "
                + "cast(? as bigint) and lease_token = cast(? as bigint) and queue = cast(? as varchar))");
        e.put("historyById",
                "insert into \"sqlq_history\" (id, queue, enqueued_at, started_at, finished_at, attempts, "
                + "outcome, detail, payload_preview) select id, queue, enqueued_at, cast(? as bigint), (" + NOW
                + "), (attempts + 1), cast(? as varchar), cast(? as varchar), substring(payload from 1 for 64) from \"sqlq_message\" where id = "
                + "cast(? as bigint)");
        e.put("nackLeased",
                "update \"sqlq_message\" set visible_at = ((" + NOW
                + ") + cast(? as bigint)), lease_token = null, last_error = ? where (id = cast(? as bigint) "
                + "and lease_token = cast(? as bigint) and queue = cast(? as varchar))");
        e.put("nackById",
                "update \"sqlq_message\" set visible_at = ((" + NOW
                + ") + cast(? as bigint)), attempts = (attempts + 1), lease_token = null, last_error = ? where id = cast(? as "
                + "bigint)");
        e.put("extend",
                "update \"sqlq_message\" set visible_at = ((" + NOW
                + ") + cast(? as bigint)) where (id = cast(? as bigint) and lease_token = cast(? as bigint) and queue = cast(? as varchar))");
        e.put("releaseLeased",
                "update \"sqlq_message\" set visible_at = (" + NOW
                + "), lease_token = null, attempts = (attempts - 1) where (id = cast(? as bigint) and "
                + "lease_token = cast(? as bigint) and queue = cast(? as varchar))");
        e.put("deadLetterLeased",
                "insert into \"sqlq_dead_letter\" (id, queue, priority, enqueued_at, attempts, headers, payload,"
                + " reason, dead_at, group_key) select id, queue, priority, enqueued_at, attempts, headers, payloa"
                + "d, cast(? as varchar), ("
                + NOW
                + "), group_key from \"sqlq_message\" where (id = cast(? as bigint) and lease_token = cast(? as bi"
                + "gint) and queue = cast(? as varchar))");
        e.put("deadLetterById",
                "insert into \"sqlq_dead_letter\" (id, queue, priority, enqueued_at, attempts, headers, payload,"
                + " reason, dead_at, group_key) select id, queue, priority, enqueued_at, (attempts + 1), headers, "
                + "payload, cast(? as varchar), ("
                + NOW
                + "), group_key from \"sqlq_message\" where id = cast(? as bigint)");
        e.put("setAttempts",
                "update \"sqlq_message\" set attempts = ? where id = cast(? as bigint)");
        e.put("deadLetterMoved",
                "insert into \"sqlq_dead_letter\" (id, queue, priority, enqueued_at, attempts, headers, payload, reason, dead_at, group_key)"
                + " select id, queue, priority, enqueued_at, attempts, headers, payload, cast(? as varchar), (" + NOW + "), group_key from \"sqlq_message\" where id = cast(? as bigint)");
        e.put("stats",
                "select count(*), sum(case when (visible_at > ("
                + NOW + ") and lease_token is not null) then 1 else 0 end), sum(case when (visible_at > (" + NOW
                + ") and lease_token is null) then 1 else 0 end), min(case when visible_at <= (" + NOW
                + ") then enqueued_at end), (" + NOW + "), (select count(*) from \"sqlq_dead_letter\" where queue = cast(? as varchar))"
                + ", (select count(*) from \"sqlq_history\" where queue = cast(? as varchar))"
                + " from \"sqlq_message\" where queue = cast(? as varchar)");
        e.put("listHistory",
                "select id, enqueued_at, started_at, finished_at, duration_ms, attempts, outcome, detail, payload_preview "
                + "from \"sqlq_history\" where queue = cast(? as varchar) order by history_id desc fetch next "
                + "? rows only");
        e.put("listDead",
                "select id, priority, enqueued_at, attempts, headers, payload, reason, dead_at, group_key from \""
                + "sqlq_dead_letter\" where queue = cast(? as varchar) order by dead_at asc, id asc fetch next ? ro"
                + "ws only");
        e.put("lockDeadIds",
                "select id from \"sqlq_dead_letter\" where queue = cast(? as varchar) order by id for update");
        e.put("listDeadSummaries", "select id, priority, enqueued_at, attempts, headers, substring(payload from 1 for 256), reason,"
                + " dead_at, group_key, octet_length(payload) from \"sqlq_dead_letter\" where queue = cast(? as varchar) order by"
                + " dead_at asc, id asc fetch next ? rows only");
        e.put("listReady",
                "select id, priority, enqueued_at, visible_at, attempts, lease_token, claimed_at, headers, substring(payload from 1 for 256), octet_length(payload), group_key, last_error, (" + NOW + ") from \"sqlq_message\" where (queue = cast(? as varchar) and id > cast(? as bigint) and visible_at <= (" + NOW + ")) order by id asc fetch next ? rows only");
        e.put("listDelayed",
                "select id, priority, enqueued_at, visible_at, attempts, lease_token, claimed_at, headers, substring(payload from 1 for 256), octet_length(payload), group_key, last_error, (" + NOW + ") from \"sqlq_message\" where (queue = cast(? as varchar) and id > cast(? as bigint) and visible_at > (" + NOW + ") and lease_token is null) order by id asc fetch next ? rows only");
        e.put("listInFlight",
                "select id, priority, enqueued_at, visible_at, attempts, lease_token, claimed_at, headers, substring(payload from 1 for 256), octet_length(payload), group_key, last_error, (" + NOW + ") from \"sqlq_message\" where (queue = cast(? as varchar) and id > cast(? as bigint) and visible_at > (" + NOW + ") and lease_token is not null) order by id asc fetch next ? rows only");
        e.put("messageById",
                "select id, priority, enqueued_at, visible_at, attempts, lease_token, claimed_at, headers, substring(payload from 1 for 256), octet_length(payload), group_key, last_error, (" + NOW + ") from \"sqlq_message\" where (queue = cast(? as varchar) and id = cast(? as bigint))");
        e.put("deadSummaryById", "select id, priority, enqueued_at, attempts, headers, substring(payload from 1 for 256), reason,"
                + " dead_at, group_key, octet_length(payload) from \"sqlq_dead_letter\" where (queue = cast(? as varchar) and id ="
                + " cast(? as bigint))");
        e.put("lockDeadId", "select id from \"sqlq_dead_letter\" where (queue = cast(? as varchar) and id = cast(? as bigint))"
                + " for update");
        e.put("requeueDead",
                "insert into \"sqlq_message\" (id, queue, priority, visible_at, enqueued_at, attempts, headers, pa"
                + "yload, last_error, group_key) select id, queue, priority, ("
                + NOW
                + "), enqueued_at, 0, headers, payload, reason, group_key from \"sqlq_dead_letter\" where (queue = c"
                + "ast(? as varchar) and id = cast(? as bigint) and group_key is null)");
        e.put("requeueDeadGrouped",
                "insert into \"sqlq_message\" (queue, priority, visible_at, enqueued_at, attempts, headers, payloa"
                + "d, last_error, group_key) select queue, priority, ("
                + NOW
                + "), enqueued_at, 0, headers, payload, reason, group_key from \"sqlq_dead_letter\" where (queue = c"
                + "ast(? as varchar) and id = cast(? as bigint) and group_key is not null)");
        e.put("deleteDead",
                "delete from \"sqlq_dead_letter\" where (queue = cast(? as varchar) and id = cast(? as "
                + "bigint))");
        e.put("purgeDead",
                "delete from \"sqlq_dead_letter\" where queue = cast(? as varchar)");
        e.put("purgeMessages",
                "delete from \"sqlq_message\" where queue = cast(? as varchar)");
        e.put("purgeHistory",
                "delete from \"sqlq_history\" where queue = cast(? as varchar)");
        e.put("pruneHistoryAge",
                "delete from \"sqlq_history\" where (queue = cast(? as varchar) and finished_at <= ((\"sqlq_now_ms\"()) - cast(? as bigint)))");
        e.put("historyCutoff",
                "select history_id from \"sqlq_history\" where queue = cast(? as varchar) order by history_id desc offset ? rows fetch next 1 rows only");
        e.put("pruneHistoryRows",
                "delete from \"sqlq_history\" where (queue = cast(? as varchar) and history_id <= cast(? as bigint))");
        e.put("historyForMove",
                "select history_id, id, enqueued_at, started_at, finished_at, duration_ms, attempts, outcome, detail, payload_preview from \"sqlq_history\" where queue = cast(? as varchar) order by history_id asc fetch next ? rows only");
        e.put("insertMovedHistory",
                "insert into \"sqlq_history\" (id, queue, enqueued_at, started_at, finished_at, attempts, outcome, detail, payload_preview) select cast(? as bigint), cast(? as varchar), cast(? as bigint), cast(? as bigint), cast(? as bigint), cast(? as int), cast(? as varchar), cast(? as varchar), cast(? as varbinary) where not exists (select 1 one from \"sqlq_history\" where (queue = cast(? as varchar) and id = cast(? as bigint) and started_at = cast(? as bigint) and finished_at = cast(? as bigint) and outcome = cast(? as varchar)))");
        e.put("deleteHistoryRow",
                "delete from \"sqlq_history\" where (queue = cast(? as varchar) and history_id = cast(? as bigint))");
        e.put("deleteQueue",
                "delete from \"sqlq_queue\" where name = cast(? as varchar)");
        e.put("listQueues",
                "select name from \"sqlq_queue\" order by name");
        e.put("rawInsert",
                "insert into \"sqlq_message\" (queue, priority, visible_at, enqueued_at, attempts, headers, "
                + "payload) values (?, ?, (" + NOW + "), (" + NOW + "), 0, ?, ?)");
        e.put("leaseQueue", "select queue from \"sqlq_message\" where (id = cast(? as bigint) and lease_token = cast(? as bigint))");
        e.put("deleteExpiredKey",
                "delete from \"sqlq_dedupe_key\" where (queue = cast(? as varchar) and dedupe_key = cast(? as varchar) and expires_at <= (" + NOW + "))");
        e.put("insertKey",
                "insert into \"sqlq_dedupe_key\" (queue, dedupe_key, expires_at) values (?, ?, ((" + NOW + ") + cast(? as bigint)))");
        e.put("setKeyMessage",
                "update \"sqlq_dedupe_key\" set message_id = ? where (queue = cast(? as varchar) and dedupe_key = cast(? as varchar))");
        e.put("listKeys",
                "select dedupe_key, message_id, (expires_at - (" + NOW + ")) from \"sqlq_dedupe_key\" where (queue = cast(? as varchar) and dedupe_key > cast(? as varchar)"
                + " and expires_at > (" + NOW + ") and message_id is not null) order by dedupe_key asc fetch next ? rows only");
        e.put("keyMessage",
                "select message_id from \"sqlq_dedupe_key\" where (queue = cast(? as varchar) and dedupe_key = cast(? as varchar))");
        e.put("deleteExpiredKeys",
                "delete from \"sqlq_dedupe_key\" where (queue, dedupe_key) in (select queue, dedupe_key from \"sqlq_dedupe_key\" where expires_at <= (" + NOW + ") order by expires_at fetch next ? rows only)");
        e.put("deleteKeys",
                "delete from \"sqlq_dedupe_key\" where queue = cast(? as varchar)");
        e.put("historyBuckets",
                "select b, outcome, count(*), avg(lat) from (select floor(finished_at / ?) as b, outcome,"
                + " finished_at - enqueued_at as lat from \"sqlq_history\" where queue = ? and finished_at >= ?)"
                + " t group by b, outcome order by b, outcome");
        e.put("pauseQueue",
                "insert into \"sqlq_paused_queue\" (queue, paused_at) select cast(? as varchar), (" + NOW + ") where not exists (select 1 one from \"sqlq_paused_queue\" where queue = cast(? as varchar))");
        e.put("resumeQueue",
                "delete from \"sqlq_paused_queue\" where queue = cast(? as varchar)");
        e.put("queuePaused",
                "select 1 one from \"sqlq_paused_queue\" where queue = cast(? as varchar)");
        e.put("dropSchema[0]",
                "drop table if exists \"sqlq_paused_queue\"");
        e.put("dropSchema[1]",
                "drop table if exists \"sqlq_dedupe_key\"");
        e.put("dropSchema[2]",
                "drop table if exists \"sqlq_history\"");
        e.put("dropSchema[3]",
                "drop table if exists \"sqlq_dead_letter\"");
        e.put("dropSchema[4]",
                "drop table if exists \"sqlq_message\"");
        e.put("dropSchema[5]",
                "drop table if exists \"sqlq_queue\"");
        e.put("dropSchema[6]",
                "drop table if exists \"sqlq_schema_history\"");
        e.put("emptyBeforeDrop[0]",
                "delete from \"sqlq_paused_queue\"");
        e.put("emptyBeforeDrop[1]",
                "delete from \"sqlq_dedupe_key\"");
        e.put("emptyBeforeDrop[2]",
                "delete from \"sqlq_history\"");
        e.put("emptyBeforeDrop[3]",
                "delete from \"sqlq_dead_letter\"");
        e.put("emptyBeforeDrop[4]",
                "delete from \"sqlq_message\"");
        e.put("emptyBeforeDrop[5]",
                "delete from \"sqlq_queue\"");
        e.put("dropFunction",
                "DROP ALIAS IF EXISTS \"sqlq_now_ms\"");

        return e;
    }

    static Map<String, String> expected(SkipLockedDialect d) {
        return switch (d) {
            case H2 -> h2();
            case POSTGRES -> postgres();
            case MARIADB -> mariadb();
        };
    }

    @ParameterizedTest
    @EnumSource(value = SkipLockedDialect.class, names = {"H2", "MARIADB"})
    void aMultiRowInsertRepeatsTheValuesTuple(SkipLockedDialect d) {
        SkipLockedStatements sql = new SkipLockedStatements(d, "sqlq_");
        assertEquals(sql.insertReturning, sql.insertRows(1));
        String tuple = sql.insert.substring(sql.insert.indexOf(" values (") + " values ".length());
        assertEquals(sql.insertReturning.replace(sql.insert, sql.insert + ", " + tuple + ", " + tuple), sql.insertRows(3));
        assertEquals(18, sql.insertRows(3).chars().filter(ch -> ch == '?').count());
    }

    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void everyStatementTextIsPinned(SkipLockedDialect d) {
        Map<String, String> actual = StatementDump.of(new SkipLockedStatements(d, "sqlq_"));
        Map<String, String> expected = expected(d);
        for (Map.Entry<String, String> e : expected.entrySet()) {
            assertEquals(e.getValue(), actual.get(e.getKey()), d + " " + e.getKey());
        }
        // nothing unpinned: every statement of the class is in the expected map, in declaration order
        assertEquals(expected.keySet().stream().toList(), actual.keySet().stream().toList(), d + " statement names");
    }

    @Test
    void clockExpressionsArePinned() {
        assertEquals(PG_NOW, SkipLockedDialect.POSTGRES.nowMillis("sqlq_"));
        assertEquals(MARIADB_NOW, SkipLockedDialect.MARIADB.nowMillis("sqlq_"));
        assertEquals(H2_NOW, SkipLockedDialect.H2.nowMillis("sqlq_"));
    }

    @Test
    void dialectOnlyStatementsAreNullElsewhere() {
        SkipLockedStatements pg = new SkipLockedStatements(SkipLockedDialect.POSTGRES, "sqlq_");
        SkipLockedStatements maria = new SkipLockedStatements(SkipLockedDialect.MARIADB, "sqlq_");
        SkipLockedStatements h2 = new SkipLockedStatements(SkipLockedDialect.H2, "sqlq_");
        assertEquals("sqlq_wakeup", pg.channel);
        assertNotNull(pg.notify);
        assertNull(maria.notify);
        assertNull(h2.notify);
        assertNull(maria.listen);
        assertNull(h2.listen);
        assertNull(pg.dropFunction);
        assertNull(maria.dropFunction);
        assertNotNull(h2.dropFunction);
        assertNotNull(pg.ackAndLeaseClaim);
        assertNull(maria.ackAndLeaseClaim);
        assertNull(h2.ackAndLeaseClaim);
        assertNotNull(pg.oldestTransactions);
        assertNotNull(maria.oldestTransactions);
        assertNull(h2.oldestTransactions);
        assertEquals("sqlq_schema_history", SkipLockedStatements.flywayTable("sqlq_"));
    }

    /** Every occurrence of the prefix is inside a quoted identifier: {@code "sqlq_...} or {@code `sqlq_...}. */
    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void prefixIsAlwaysQuoted(SkipLockedDialect d) {
        String quote = d == SkipLockedDialect.MARIADB ? "`" : "\"";
        Pattern object = Pattern.compile(Pattern.quote(quote) + "sqlq_[a-z_]+" + Pattern.quote(quote));
        for (Map.Entry<String, String> s : StatementDump.of(new SkipLockedStatements(d, "sqlq_")).entrySet()) {
            String text = s.getValue();
            int occurrences = text.split("sqlq_", -1).length - 1;
            Matcher m = object.matcher(text);
            int quoted = 0;
            while (m.find()) {
                quoted++;
            }
            assertEquals(occurrences, quoted, d + " " + s.getKey() + " names an object without quotes: " + text);
        }
    }

    /** The prefix is the only thing that varies with the prefix: another prefix changes the names only. */
    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void anotherPrefixChangesOnlyTheNames(SkipLockedDialect d) {
        Map<String, String> base = StatementDump.of(new SkipLockedStatements(d, "sqlq_"));
        Map<String, String> other = StatementDump.of(new SkipLockedStatements(d, "tenant7_q_"));
        assertEquals(base.keySet(), other.keySet());
        base.forEach((name, text) -> assertEquals(text.replace("sqlq_", "tenant7_q_"), other.get(name), d + " " + name));
    }

    /**
     * No statement carries a queue name or any other value: the only string literals in any statement
     * are MariaDB's fixed epoch and PostgreSQL's planner settings (and the fixed words of the server-activity reads of
     * {@code oldestTransactions}), and every comparison with a queue column is with a bind.
     */
    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void queueNamesAreAlwaysBindValues(SkipLockedDialect d) {
        Pattern literal = Pattern.compile("'[^']*'");
        Pattern queueCompare = Pattern.compile("\\b(queue|name) = ([^\\s,]+)");
        for (Map.Entry<String, String> s : StatementDump.of(new SkipLockedStatements(d, "sqlq_")).entrySet()) {
            // PostgreSQL's fixed planner settings before a claim or an ack are literals too
            Matcher lit = literal.matcher(s.getValue().replace(SkipLockedStatements.CLAIM_PLAN, "")
                    .replace(SkipLockedStatements.ACK_PLAN, "").replace(SkipLockedStatements.OLDEST_TRANSACTIONS_POSTGRES, "")
                    .replace(SkipLockedStatements.OLDEST_TRANSACTIONS_MARIADB, ""));
            while (lit.find()) {
                assertEquals("'1970-01-01 00:00:00'", lit.group(), d + " " + s.getKey() + " holds a literal");
            }
            Matcher cmp = queueCompare.matcher(s.getValue());
            while (cmp.find()) {
                String rhs = cmp.group(2);
                // or the outer row's own queue, in the claim's message-group and pause checks (g.queue = "sqlq_message".queue)
                assertTrue(rhs.equals("?") || rhs.equals("?)") || rhs.startsWith("cast(?") || rhs.matches("[\"`]sqlq_message[\"`]\\.queue\\)*"),
                        d + " " + s.getKey() + " compares " + cmp.group(1) + " with " + rhs);
            }
        }
        // the statements that take a queue name have it as their first bind (see SkipLockedBackend)
        Map<String, String> all = StatementDump.of(new SkipLockedStatements(d, "sqlq_"));
        for (String name : Set.of("stats", "listHistory", "listDead", "lockDeadIds", "lockDeadId", "listDeadSummaries", "deadSummaryById",
                "listReady", "listDelayed", "listInFlight", "messageById", "requeueDead", "deleteDead", "purgeDead", "purgeMessages", "purgeHistory", "deleteQueue",
                "historyForMove", "deleteHistoryRow",
                "deleteExpiredKey", "keyMessage", "deleteKeys", "listKeys",
                d == SkipLockedDialect.H2 ? "claimCandidates" : "claimSelect")) {
            assertTrue(Pattern.compile("\\b(queue|name) = (cast\\()?\\?").matcher(all.get(name)).find(), d + " " + name);
        }
    }

    /**
     * The number of {@code ?} of each statement equals the binds SkipLockedBackend (and the conformance
     * raw-row hook, SkipLockedTarget) sets on it.
     */
    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void placeholdersMatchTheBackendsBinds(SkipLockedDialect d) {
        boolean h2 = d == SkipLockedDialect.H2;
        Map<String, Integer> binds = new HashMap<>();
        binds.put("insert", 6);                  // queue, priority, delay, headers, payload, group
        if (d != SkipLockedDialect.POSTGRES) {
            binds.put("insertReturning", 6);     // the same, one row
        }
        binds.put("ensureQueue", h2 ? 2 : 1);    // queue (H2: queue twice, NOT EXISTS)
        binds.put("claimSelect", h2 ? 1 : 2);    // queue, limit (H2: the candidate ids)
        if (h2) {
            binds.put("claimCandidates", 2);     // queue, limit (held ids are left out in Java)
        }
        binds.put("moveSelect", h2 ? 1 : 2);     // H2 candidate ids; else queue, limit
        if (h2) {
            binds.put("moveCandidates", 2);      // queue, limit
        }
        binds.put("moveLease", 3);               // token, lease, id
        binds.put("leaseUpdate", 3);             // token, lease, id
        binds.put("deleteLeased", 3);            // id, token, queue
        binds.put("deleteById", 1);              // id
        if (d == SkipLockedDialect.POSTGRES) {
            binds.put("idArrayPlan", 0);         // a SET LOCAL before the deletes by id array
            binds.put("ackByClaim", 3);          // queue, token, ids
        }
        if (h2) {
            binds.put("leaseUpdateByIds", 3);    // token, lease, ids
        }
        if (d != SkipLockedDialect.MARIADB) {
            binds.put("deleteByIds", 1);         // ids
            binds.put("deleteLeasedByIds", 3);   // queue, token, ids
        }
        binds.put("historyLeased", 5);           // outcome, detail, id, token, queue
        binds.put("historyById", 4);             // started, outcome, detail, id
        binds.put("nackLeased", 5);              // delay, error, id, token, queue
        binds.put("nackById", 3);                // delay, error, id
        binds.put("extend", 4);                  // lease, id, token, queue
        binds.put("releaseLeased", 3);           // id, token, queue
        binds.put("deadLetterLeased", 4);        // reason, id, token, queue
        binds.put("deadLetterById", 2);          // reason, id
        binds.put("setAttempts", 2);             // attempts, id
        binds.put("deadLetterMoved", 2);         // reason, id
        binds.put("stats", 3);                   // queue of the dead-letter count, of the history count, of the message table
        binds.put("listHistory", 2);             // queue, limit
        binds.put("listDead", 2);                // queue, limit
        binds.put("lockDeadIds", 1);
        binds.put("lockDeadId", 2);              // queue, id
        binds.put("listDeadSummaries", 2);       // queue, limit
        binds.put("deadSummaryById", 2);         // queue, id
        binds.put("listReady", 3);               // queue, after id, limit
        binds.put("listDelayed", 3);
        binds.put("listInFlight", 3);
        binds.put("messageById", 2);             // queue, id
        binds.put("requeueDead", 2);             // queue, id
        binds.put("requeueDeadGrouped", 2);      // queue, id
        binds.put("deleteDead", 2);              // queue, id
        binds.put("purgeDead", 1);
        binds.put("purgeMessages", 1);
        binds.put("purgeHistory", 1);
        binds.put("pruneHistoryAge", 2);         // queue, age
        binds.put("historyCutoff", 2);           // queue, keep
        binds.put("pruneHistoryRows", 2);        // queue, cutoff
        binds.put("historyForMove", 2);          // queue, limit
        binds.put("insertMovedHistory", 14);     // id, queue, enqueued, started, finished, attempts, outcome, detail, preview; queue, id, started, finished, outcome
        binds.put("deleteHistoryRow", 2);        // queue, history id
        binds.put("deleteQueue", 1);
        binds.put("listQueues", 0);
        binds.put("leaseQueue", 2);              // id, token
        binds.put("rawInsert", 4);               // queue, priority, headers, payload
        binds.put("deleteExpiredKey", 2);        // queue, key
        binds.put("insertKey", 3);               // queue, key, window
        binds.put("setKeyMessage", 3);           // message id, queue, key
        binds.put("listKeys", 3);                // queue, after key, limit
        binds.put("keyMessage", 2);              // queue, key
        binds.put("deleteExpiredKeys", 1);       // limit
        binds.put("deleteKeys", 1);              // queue
        binds.put("historyBuckets", 3);          // bucket ms, queue, from
        binds.put("pauseQueue", 2);              // queue, queue (NOT EXISTS)
        binds.put("resumeQueue", 1);             // queue
        binds.put("queuePaused", 1);             // queue
        if (!h2) {
            binds.put("oldestTransactions", 1);  // limit
        }
        for (int i = 0; i < 7; i++) {
            binds.put("dropSchema[" + i + "]", 0);
        }
        if (d == SkipLockedDialect.POSTGRES) {
            binds.put("insertMany", 8);          // channel, queue, queue, priorities, delays, headers, payloads, groups
            binds.put("leaseClaim", 4);          // queue, limit, token, lease
            binds.put("ackAndLeaseClaim", 7);    // queue, old token, ids, queue, limit, new token, lease
            binds.put("unclaim", 5);             // old token, old claimed_at, old visible_at, id, the claim's token
            binds.put("notify", 2);              // channel, queue
            binds.put("listen", 0);
        }
        if (h2) {
            binds.put("dropFunction", 0);
            for (int i = 0; i < 6; i++) {
                binds.put("emptyBeforeDrop[" + i + "]", 0);
            }
        }
        Map<String, String> all = StatementDump.of(new SkipLockedStatements(d, "sqlq_"));
        assertEquals(binds.keySet(), all.keySet(), d + " statements");
        all.forEach((name, text) -> {
            String outsideLiterals = text.replaceAll("'[^']*'", "");
            assertEquals(binds.get(name), outsideLiterals.length() - outsideLiterals.replace("?", "").length(),
                    d + " " + name + ": " + text);
            // one statement, but for the plan settings PostgreSQL's claims send around them in the same round trip
            // (and the acks before the claim of ackAndLeaseClaim: two statements by design, see its Javadoc)
            String own = text.replace(SkipLockedStatements.CLAIM_PLAN, "").replace(SkipLockedStatements.CLAIM_PLAN_END, "")
                    .replace(SkipLockedStatements.ACK_PLAN, "");
            assertEquals(name.equals("ackAndLeaseClaim") ? 1 : 0, own.length() - own.replace(";", "").length(),
                    d + " " + name + ": statements after the plan settings");
        });
    }
}
