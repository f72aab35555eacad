package io.cyclium.console;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A keyset-paged table's position, kept in the page's URL so that every page of every filter can
 * be bookmarked and shared: {@code cursor} is where the shown page starts (empty: the first page)
 * and {@code back} the cursors of the pages before it, oldest first, joined by {@code .} (a cursor
 * is URL-safe Base64, which has no dot). The links to the older and newer page carry the next
 * pair; no offset and no count is ever needed. Only the last {@link #MAX_BACK} pages are kept: a
 * longer walk returns to the first page instead of growing the URL without bound.
 */
public final class KeysetPager<T> implements Serializable {

    private static final long serialVersionUID = 1L;

    static final int MAX_BACK = 40;
    private static final String FIRST = "0";
    private static final String SEPARATOR = ".";

    private List<String> back = List.of();
    private String current;
    private String next;
    private List<T> rows = List.of();

    /** The shown page's cursor, as the URL's {@code cursor} parameter carries it (null: the first page). */
    public String getCursor() {
        return current;
    }

    public void setCursor(String cursor) {
        current = blank(cursor) ? null : cursor.trim();
    }

    /** The trail of the pages before it, as the URL's {@code back} parameter carries it. */
    public String getBack() {
        return back.isEmpty() ? null : String.join(SEPARATOR, back);
    }

    public void setBack(String backTrail) {
        back = blank(backTrail) ? List.of() : Arrays.stream(backTrail.split("\\" + SEPARATOR)).filter(s -> !s.isBlank())
                .limit(MAX_BACK).toList();
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
        return current != null;
    }

    /** 1 for the first page. */
    public int getPageNumber() {
        return current == null ? 1 : back.size() + 1;
    }

    /** The older page's {@code cursor} parameter. */
    public String getNextCursor() {
        return next;
    }

    /** The older page's {@code back} parameter: this trail plus the shown page. */
    public String getNextBack() {
        List<String> trail = new ArrayList<>(back);
        trail.add(current == null ? FIRST : current);
        if (trail.size() > MAX_BACK) {
            trail = trail.subList(trail.size() - MAX_BACK, trail.size());
        }
        return String.join(SEPARATOR, trail);
    }

    /** The newer page's {@code cursor} parameter (null: the first page). */
    public String getPreviousCursor() {
        if (back.isEmpty()) {
            return null;
        }
        String last = back.get(back.size() - 1);
        return FIRST.equals(last) ? null : last;
    }

    /** The newer page's {@code back} parameter. */
    public String getPreviousBack() {
        return back.size() <= 1 ? null : String.join(SEPARATOR, back.subList(0, back.size() - 1));
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
