package io.cyclium.store;

import jakarta.persistence.EntityManager;
import jakarta.persistence.Query;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A native statement built piece by piece with numbered parameters ({@code ?1}, {@code ?2}, …).
 *
 * <p>It never binds a null: PostgreSQL cannot always infer the type of a null parameter, and a
 * driver that guesses VARCHAR makes an INSERT into a DOUBLE column fail. So {@link #insert} and
 * {@link #set} leave null columns out, and {@link #is} writes {@code column IS NULL} into the
 * text instead of comparing with a null parameter. {@link #raw(String)} marks SQL that goes into
 * the text as it is (the database clock, a literal), never user input.
 */
public final class NativeSql {

    /** SQL text that is written into the statement instead of being bound. */
    public record Raw(String sql) {
        public Raw {
            Objects.requireNonNull(sql, "sql");
        }
    }

    private final StringBuilder text = new StringBuilder();
    private final List<Object> parameters = new ArrayList<>();
    private String lockedClaim;
    private boolean independent;

    /** A text (CLOB) column of a native query's row: String or Clob, by driver. */
    public static String text(Object column) {
        if (column == null || column instanceof String) {
            return (String) column;
        }
        if (column instanceof java.sql.Clob clob) {
            try {
                return clob.getSubString(1, (int) clob.length());
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException("cannot read a text column", e);
            }
        }
        return column.toString();
    }

    /** A statement written with its numbered parameters ({@code ?1}, {@code ?2}, …) already in the text. */
    public static NativeSql numbered(String text, Object... parameters) {
        NativeSql s = new NativeSql().sql(text);
        for (Object p : parameters) {
            s.parameters.add(Objects.requireNonNull(p, "a NativeSql parameter may not be null"));
        }
        return s;
    }

    public static Raw raw(String sql) {
        return new Raw(sql);
    }

    /** Appends SQL text as it is. */
    public NativeSql sql(String sql) {
        text.append(sql);
        return this;
    }

    /** Appends a bound parameter, or the text of a {@link Raw}. */
    public NativeSql value(Object value) {
        Objects.requireNonNull(value, "a NativeSql parameter may not be null: leave the column out or use is()");
        if (value instanceof Raw raw) {
            text.append(raw.sql());
        } else {
            parameters.add(value);
            text.append('?').append(parameters.size());
        }
        return this;
    }

    /**
     * Appends an SQL fragment built around one bound parameter, e.g. the vendor's
     * "now + ?n seconds": {@code fragment} receives the placeholder ({@code ?n}) to place.
     */
    public NativeSql around(Object value, java.util.function.UnaryOperator<String> fragment) {
        Objects.requireNonNull(value, "a NativeSql parameter may not be null");
        parameters.add(value);
        text.append(fragment.apply("?" + parameters.size()));
        return this;
    }

    /** Appends {@code column = ?n}, or {@code column IS NULL} when the value is null. */
    public NativeSql is(String column, Object valueOrNull) {
        if (valueOrNull == null) {
            return sql(column + " IS NULL");
        }
        return sql(column + " = ").value(valueOrNull);
    }

    /** Appends {@code column IN (?n, ?m, …)}; the values must not be empty. */
    public NativeSql in(String column, Collection<?> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("IN () with no values for " + column);
        }
        sql(column + " IN (");
        Iterator<?> it = values.iterator();
        while (it.hasNext()) {
            value(it.next());
            if (it.hasNext()) {
                sql(", ");
            }
        }
        return sql(")");
    }

    /** Appends {@code INSERT INTO table (a, b) VALUES (?1, ?2)}, leaving out columns whose value is null. */
    public NativeSql insert(String table, Map<String, ?> columns) {
        List<Map.Entry<String, ?>> present = present(columns);
        sql("INSERT INTO " + table + " (");
        sql(String.join(", ", present.stream().map(Map.Entry::getKey).toList()));
        sql(") VALUES (");
        for (int i = 0; i < present.size(); i++) {
            if (i > 0) {
                sql(", ");
            }
            value(present.get(i).getValue());
        }
        return sql(")");
    }

    /**
     * Appends one {@code INSERT INTO table (a, b) VALUES (?1, ?2), (?3, ?4), …} for rows with the
     * same columns in the same order (the first row's). Unlike {@link #insert}, a null value is
     * written as the literal {@code NULL}: a column must be present in every row or in none, and
     * INSERT … VALUES types each literal by its target column on every database shipped.
     */
    public NativeSql insertRows(String table, List<? extends Map<String, ?>> rows) {
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("no rows to insert into " + table);
        }
        List<String> names = new ArrayList<>(rows.get(0).keySet());
        sql("INSERT INTO " + table + " (").sql(String.join(", ", names)).sql(") VALUES ");
        for (int r = 0; r < rows.size(); r++) {
            Map<String, ?> row = rows.get(r);
            if (!row.keySet().equals(new java.util.HashSet<>(names))) {
                throw new IllegalArgumentException("row " + r + " of an insert into " + table + " has columns " + row.keySet()
                        + ", the first has " + names);
            }
            sql(r == 0 ? "(" : ", (");
            for (int i = 0; i < names.size(); i++) {
                if (i > 0) {
                    sql(", ");
                }
                Object v = row.get(names.get(i));
                value(v == null ? raw("NULL") : v);
            }
            sql(")");
        }
        return this;
    }

    /** Appends {@code a = ?1, b = ?2}, leaving out columns whose value is null. */
    public NativeSql set(Map<String, ?> columns) {
        List<Map.Entry<String, ?>> present = present(columns);
        for (int i = 0; i < present.size(); i++) {
            if (i > 0) {
                sql(", ");
            }
            sql(present.get(i).getKey() + " = ").value(present.get(i).getValue());
        }
        return this;
    }

    /**
     * Appends another statement's text and parameters, its numbered parameters renumbered to follow
     * this one's (to make one statement of several, e.g. PostgreSQL's data-modifying {@code WITH}).
     */
    public NativeSql append(NativeSql other) {
        int offset = parameters.size();
        java.util.regex.Matcher m = NUMBERED_PARAMETER.matcher(other.text);
        StringBuilder renumbered = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(renumbered, "?" + (Integer.parseInt(m.group(1)) + offset));
        }
        m.appendTail(renumbered);
        text.append(renumbered);
        parameters.addAll(other.parameters);
        return this;
    }

    /**
     * Whether a statement given {@code em} runs when it is issued: false under a group commit's
     * recording entity manager, which records writes to run later and cannot answer a query.
     */
    public static boolean runsNow(EntityManager em) {
        return !DeferredUpdates.isRecording(em);
    }

    /** A copy of this statement with SQL text added at the end; the parameters stay as they are. */
    public NativeSql followedBy(String sql) {
        NativeSql copy = new NativeSql();
        copy.text.append(text).append(sql);
        copy.parameters.addAll(parameters);
        copy.independent = independent;
        return copy;
    }

    /** A copy of this statement whose text starts with {@code replacement} instead of {@code prefix}. */
    public NativeSql replacingPrefix(String prefix, String replacement) {
        if (!text().startsWith(prefix)) {
            throw new IllegalArgumentException("statement does not start with \"" + prefix + "\": " + text());
        }
        NativeSql copy = new NativeSql();
        copy.text.append(replacement).append(text, prefix.length(), text.length());
        copy.parameters.addAll(parameters);
        copy.independent = independent;
        return copy;
    }

    public String text() {
        return text.toString();
    }

    /**
     * Says that this statement locks the existing row of the lease keyed {@code key} (it settles
     * it). A group commit's deferred statements lock those rows in key order, the order the
     * heartbeat locks a node's leases in, so the two never wait for each other in a cycle
     * ({@link DeferredUpdates}).
     */
    public NativeSql lockingClaim(String key) {
        this.lockedClaim = Objects.requireNonNull(key, "key");
        return this;
    }

    /**
     * Marks this write as one that reads no row another write of its work changes, and whose guard
     * does not depend on one: on PostgreSQL a group commit may then send a work whose writes are all
     * marked as ONE statement ({@link DeferredUpdates}), where each write is a data-modifying
     * {@code WITH} part — and those parts all see the rows as they were when the statement began,
     * not each other's changes. The terminal write's episode row, journal row, lease and slots are
     * such writes (each its own rows); an UPDATE that counts rows an INSERT of the same work adds
     * is not.
     */
    public NativeSql independent() {
        this.independent = true;
        return this;
    }

    /** Whether {@link #independent} marked this write. */
    public boolean isIndependent() {
        return independent;
    }

    /** The lease key given to {@link #lockingClaim}, or null. */
    public String lockedClaim() {
        return lockedClaim;
    }

    public List<Object> parameters() {
        return Collections.unmodifiableList(parameters);
    }

    /** The statement for plain JDBC: {@code ?} placeholders, the parameters in their order in the text. */
    public record Jdbc(String text, List<Object> parameters) {
    }

    private static final java.util.regex.Pattern NUMBERED_PARAMETER = java.util.regex.Pattern.compile("\\?(\\d+)");

    /**
     * Each numbered text's JDBC form, worked out once: the group commit's one writer thread turns
     * every deferred statement of every batch into JDBC, and the texts are a few dozen constants
     * (a regular expression per statement was a tenth of that thread's samples). Texts built with a
     * varying shape (lists of values) stop being remembered past {@link #MAX_SHAPES}.
     */
    private static final Map<String, JdbcShape> SHAPES = new java.util.concurrent.ConcurrentHashMap<>();
    private static final int MAX_SHAPES = 2_048;

    /** A numbered text's JDBC text, and which numbered parameter each {@code ?} takes (0-based). */
    private record JdbcShape(String text, int[] order) {

        static JdbcShape of(String numbered) {
            java.util.regex.Matcher m = NUMBERED_PARAMETER.matcher(numbered);
            StringBuilder jdbc = new StringBuilder();
            List<Integer> order = new ArrayList<>();
            while (m.find()) {
                order.add(Integer.parseInt(m.group(1)) - 1);
                m.appendReplacement(jdbc, "?");
            }
            m.appendTail(jdbc);
            return new JdbcShape(jdbc.toString(), order.stream().mapToInt(Integer::intValue).toArray());
        }
    }

    /** This statement with {@code ?n} turned into JDBC's {@code ?} and the parameters ordered to match. */
    public Jdbc jdbc() {
        String numbered = text.toString();
        JdbcShape shape = SHAPES.get(numbered);
        if (shape == null) {
            shape = JdbcShape.of(numbered);
            if (SHAPES.size() < MAX_SHAPES) {
                SHAPES.putIfAbsent(numbered, shape);
            }
        }
        List<Object> ordered = new ArrayList<>(shape.order().length);
        for (int index : shape.order()) {
            ordered.add(parameters.get(index));
        }
        return new Jdbc(shape.text(), ordered);
    }

    /** The statement as a native query with its parameters bound. */
    public Query query(EntityManager em) {
        return bind(em.createNativeQuery(text()));
    }

    /** The statement as a native query whose rows map onto an entity class. */
    public Query query(EntityManager em, Class<?> entity) {
        return bind(em.createNativeQuery(text(), entity));
    }

    /**
     * Runs the statement; returns the rows it changed. Under a group commit's recording entity
     * manager it is recorded instead and answers 1, checked when the batch runs
     * ({@link DeferredUpdates}).
     */
    public int executeUpdate(EntityManager em) {
        if (DeferredUpdates.record(em, this)) {
            return 1;
        }
        return query(em).executeUpdate();
    }

    private Query bind(Query q) {
        for (int i = 0; i < parameters.size(); i++) {
            q.setParameter(i + 1, parameters.get(i));
        }
        return q;
    }

    private static List<Map.Entry<String, ?>> present(Map<String, ?> columns) {
        List<Map.Entry<String, ?>> present = new ArrayList<>();
        for (Map.Entry<String, ?> e : columns.entrySet()) {
            if (e.getValue() != null) {
                present.add(e);
            }
        }
        if (present.isEmpty()) {
            throw new IllegalArgumentException("no column has a value: " + columns.keySet());
        }
        return present;
    }
}
