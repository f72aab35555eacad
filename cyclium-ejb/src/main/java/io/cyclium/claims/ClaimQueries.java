package io.cyclium.claims;

import io.cyclium.node.DbClock;
import io.cyclium.problem.Problem;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Read side of {@code cyclium_work_claims} for the console and the API (every write stays in
 * {@link JpaWorkClaims}). Pages are keyset-paged by key, so a deep page costs what the first one
 * does; nothing is counted over the whole table.
 */
public final class ClaimQueries {

    /** The largest page, whatever a caller asks for. */
    public static final int MAX_PAGE = 200;

    /** Which claims a list shows; every field optional. The key prefix matches literally (no wildcards). */
    public record Filter(String owner, String workType, String state, String keyPrefix) {

        public static final Filter ANY = new Filter(null, null, null, null);

        public Filter {
            owner = blankToNull(owner);
            workType = blankToNull(workType);
            keyPrefix = keyPrefix == null || keyPrefix.isEmpty() ? null : keyPrefix;
            state = blankToNull(state);
            if (state != null) {
                String raw = state;
                state = Arrays.stream(ClaimState.values()).map(ClaimState::wireName).filter(w -> w.equals(raw)).findFirst()
                        .orElseThrow(() -> Problem.invalid("state", "state \"" + shorten(raw)
                                + "\" is not one of claimed, done, failed, expired"));
            }
        }
    }

    /**
     * One claim as the console shows it. {@code secondsLeft} is lease_until minus the database's
     * now, for a claimed row only (negative: lapsed, anyone may steal it); null otherwise.
     */
    public record ClaimRow(String key, String workType, String owner, long fence, String state, LocalDateTime leaseUntil,
            Long secondsLeft, int attempt, LocalDateTime claimedAt, LocalDateTime lastHeartbeatAt,
            LocalDateTime finishedAt) {
    }

    /** One page and the cursor of the next (null: this is the last). */
    public record ClaimPage(List<ClaimRow> claims, String nextCursor, LocalDateTime databaseNow) {

        public ClaimPage {
            claims = List.copyOf(claims);
        }
    }

    /** Claimed rows per owner node: live (lease not yet lapsed) and lapsed, on the database clock. */
    public record HeldByNode(String owner, long live, long lapsed) {
    }

    private final DatabaseVendor vendor;

    public ClaimQueries(DatabaseVendor vendor) {
        this.vendor = Objects.requireNonNull(vendor, "vendor");
    }

    /** Claims in key order after {@code cursor} (from {@link ClaimPage#nextCursor()}; null: from the start). */
    public ClaimPage page(EntityManager em, Filter filter, String cursor, int size) {
        int n = Math.max(1, Math.min(size, MAX_PAGE));
        NativeSql sql = new NativeSql().sql(select() + " WHERE 1 = 1");
        if (filter.owner() != null) {
            sql.sql(" AND owner_node = ").value(filter.owner());
        }
        if (filter.workType() != null) {
            sql.sql(" AND work_type = ").value(filter.workType());
        }
        if (filter.state() != null) {
            sql.sql(" AND state = ").value(filter.state());
        }
        if (filter.keyPrefix() != null) {
            // the prefix is bound, its LIKE wildcards escaped: "a_b%" matches only keys starting "a_b%"
            sql.sql(" AND dedupe_key LIKE ").value(likePrefix(filter.keyPrefix())).sql(" ESCAPE '!'");
        }
        String after = decode(cursor);
        if (after != null) {
            sql.sql(" AND dedupe_key > ").value(after);
        }
        sql.sql(" ORDER BY dedupe_key ");
        @SuppressWarnings("unchecked")
        List<Object[]> rows = sql.around(n + 1, vendor::firstRows).query(em).getResultList();
        List<ClaimRow> page = new ArrayList<>();
        LocalDateTime now = null;
        for (Object[] r : rows.subList(0, Math.min(n, rows.size()))) {
            now = time(r[10]);
            page.add(row(r, now));
        }
        if (now == null) {
            now = DbClock.toLocalDateTime(em.createNativeQuery("SELECT " + vendor.utcNow()).getSingleResult());
        }
        String next = rows.size() > n ? encode(page.get(n - 1).key()) : null;
        return new ClaimPage(page, next, now);
    }

    /** The claim on one key, as of the database's now. */
    public java.util.Optional<ClaimRow> find(EntityManager em, String key) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = new NativeSql().sql(select() + " WHERE dedupe_key = ").value(key).query(em).getResultList();
        return rows.stream().findFirst().map(r -> row(r, time(r[10])));
    }

    /** Claimed rows per owner, live and lapsed; reads only claimed rows (the state index). */
    public List<HeldByNode> heldByNode(EntityManager em) {
        String now = vendor.utcNow();
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT owner_node,"
                + " SUM(CASE WHEN lease_until >= " + now + " THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN lease_until < " + now + " THEN 1 ELSE 0 END)"
                + " FROM cyclium_work_claims WHERE state = 'claimed' GROUP BY owner_node ORDER BY owner_node").getResultList();
        Map<String, HeldByNode> out = new LinkedHashMap<>();
        for (Object[] r : rows) {
            out.put((String) r[0], new HeldByNode((String) r[0], ((Number) r[1]).longValue(), ((Number) r[2]).longValue()));
        }
        return List.copyOf(out.values());
    }

    /** The columns {@link #row} reads, and the database's now as the last one. */
    private String select() {
        return "SELECT dedupe_key, work_type, owner_node, fence, state, lease_until, attempt, claimed_at, last_heartbeat_at,"
                + " finished_at, " + vendor.utcNow() + " FROM cyclium_work_claims";
    }

    private static ClaimRow row(Object[] r, LocalDateTime now) {
        String state = (String) r[4];
        LocalDateTime leaseUntil = time(r[5]);
        Long left = "claimed".equals(state) && leaseUntil != null ? Duration.between(now, leaseUntil).toSeconds() : null;
        return new ClaimRow((String) r[0], (String) r[1], (String) r[2], ((Number) r[3]).longValue(), state, leaseUntil,
                left, ((Number) r[6]).intValue(), time(r[7]), time(r[8]), time(r[9]));
    }

    private static LocalDateTime time(Object value) {
        return value == null ? null : DbClock.toLocalDateTime(value);
    }

    static String likePrefix(String prefix) {
        return prefix.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%";
    }

    static String encode(String key) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(key.getBytes(StandardCharsets.UTF_8));
    }

    static String decode(String cursor) {
        if (cursor == null || cursor.isBlank()) {
            return null;
        }
        try {
            return new String(Base64.getUrlDecoder().decode(cursor.trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw Problem.invalid("cursor", "cursor \"" + shorten(cursor) + "\" is not one this API handed out");
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    private static String shorten(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "…" : s;
    }
}
