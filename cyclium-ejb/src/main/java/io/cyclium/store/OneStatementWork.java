package io.cyclium.store;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * PostgreSQL: the writes of one work as one statement. Every write but the last becomes a
 * data-modifying {@code WITH} part that returns a row per row it changed; the last stays the
 * statement's own UPDATE or DELETE, whose condition gains "each part changed exactly one row". The
 * statement's count is therefore 1 exactly when every write changed one row — what a deferred
 * work was told ({@link DeferredUpdates}) — and 0 otherwise, which fails the batch as a wrong count
 * always did. A terminal write (the episode row, its journal row, its lease settled) costs one
 * statement and one round trip instead of three.
 *
 * <p>Order and locks: PostgreSQL runs a part when the statement first reads it; the condition
 * reads the parts in their order before the last write locks its row, so the rows are locked in
 * the order the work wrote them (episode row, journal, lease: the drain's order). Parts run
 * exactly once, to completion, even when the condition is already false. Every part sees the rows
 * as they were when the statement began, never another part's change: only writes marked
 * {@link NativeSql#independent} are combined.
 *
 * <p>Only shapes this class can read for sure are combined: no write with a {@code WITH} or
 * {@code RETURNING} of its own, and a last write with exactly one {@code WHERE} outside
 * parentheses and quotes. Anything else runs as before, one batch per write.
 */
final class OneStatementWork {

    /** Combined texts by the works' texts; texts are a few dozen constants (capped as NativeSql's shapes). */
    private static final Map<List<String>, Optional<String>> TEXTS = new ConcurrentHashMap<>();
    private static final int MAX_TEXTS = 512;

    private OneStatementWork() {
    }

    /** The one statement for writes {@code texts} (JDBC form, in the order the work ran them); empty when they cannot be one. */
    static Optional<String> text(List<String> texts) {
        Optional<String> known = TEXTS.get(texts);
        if (known != null) {
            return known;
        }
        Optional<String> made = Optional.ofNullable(combine(texts));
        if (TEXTS.size() < MAX_TEXTS) {
            TEXTS.putIfAbsent(List.copyOf(texts), made);
        }
        return made;
    }

    private static String combine(List<String> texts) {
        if (texts.size() < 2) {
            return null;
        }
        for (String t : texts) {
            String head = t.stripLeading().toUpperCase(Locale.ROOT);
            if (!(head.startsWith("INSERT ") || head.startsWith("UPDATE ") || head.startsWith("DELETE "))
                    || containsWord(head, "RETURNING")) {
                return null;
            }
        }
        String last = texts.get(texts.size() - 1);
        String lastHead = last.stripLeading().toUpperCase(Locale.ROOT);
        if (!(lastHead.startsWith("UPDATE ") || lastHead.startsWith("DELETE "))) {
            return null;
        }
        int where = onlyTopLevelWhere(last);
        if (where < 0) {
            return null;
        }
        StringBuilder sql = new StringBuilder("WITH ");
        StringBuilder each = new StringBuilder();
        for (int i = 0; i < texts.size() - 1; i++) {
            String part = "w" + (i + 1);
            sql.append(i == 0 ? "" : ", ").append(part).append(" AS (").append(texts.get(i)).append(" RETURNING 1)");
            each.append(" AND (SELECT count(*) FROM ").append(part).append(") = 1");
        }
        int condition = where + " WHERE ".length();
        return sql.append(' ').append(last, 0, where).append(" WHERE (").append(last.substring(condition)).append(')')
                .append(each).toString();
    }

    /**
     * Where the text's one {@code " WHERE "} outside parentheses, quotes and double quotes begins;
     * -1 when there is none or more than one.
     */
    static int onlyTopLevelWhere(String text) {
        int depth = 0;
        int found = -1;
        char quote = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
                continue;
            }
            switch (c) {
                case '\'', '"' -> quote = c;
                case '(' -> depth++;
                case ')' -> depth--;
                default -> {
                    if (depth == 0 && text.regionMatches(true, i, " WHERE ", 0, " WHERE ".length())) {
                        if (found >= 0) {
                            return -1;
                        }
                        found = i;
                    }
                }
            }
        }
        return depth == 0 && quote == 0 ? found : -1;
    }

    private static boolean containsWord(String upper, String word) {
        int i = upper.indexOf(word);
        while (i >= 0) {
            boolean before = i == 0 || !Character.isLetterOrDigit(upper.charAt(i - 1)) && upper.charAt(i - 1) != '_';
            int end = i + word.length();
            boolean after = end == upper.length() || !Character.isLetterOrDigit(upper.charAt(end)) && upper.charAt(end) != '_';
            if (before && after) {
                return true;
            }
            i = upper.indexOf(word, i + 1);
        }
        return false;
    }
}
