package io.cyclium.console;

import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * A keyset-paged table's position: the rows shown, the cursor they were read from (null: the
 * first page), the cursors of the pages before it (so "previous" goes back without offsets or
 * counts) and the cursor of the next page (null: this is the last). The page bean reads with
 * {@link #cursor()} and hands the result to {@link #show}.
 */
public final class KeysetPager<T> implements Serializable {

    private static final long serialVersionUID = 1L;

    private final Deque<String> before = new ArrayDeque<>();
    private String current;
    private String next;
    private List<T> rows = List.of();

    /** Back to the first page (after a filter change, say). */
    void reset() {
        before.clear();
        current = null;
    }

    /** On to the next page; on the last page, stays there. */
    void forward() {
        if (next == null) {
            return;
        }
        // ArrayDeque refuses nulls: the first page's null cursor is kept as ""
        before.push(current == null ? "" : current);
        current = next;
    }

    /** Back one page; on the first page, stays there. */
    void back() {
        if (before.isEmpty()) {
            return;
        }
        String previous = before.pop();
        current = previous.isEmpty() ? null : previous;
    }

    /** Where the page to read starts (null: the first page). */
    String cursor() {
        return current;
    }

    /** What was read at {@link #cursor()}, and where the page after it starts. */
    void show(List<T> rows, String nextCursor) {
        this.rows = List.copyOf(rows);
        this.next = nextCursor;
    }

    public List<T> getRows() {
        return rows;
    }

    public boolean isHasNext() {
        return next != null;
    }

    public boolean isHasPrevious() {
        return !before.isEmpty();
    }

    /** 1 for the first page. */
    public int getPageNumber() {
        return before.size() + 1;
    }
}
