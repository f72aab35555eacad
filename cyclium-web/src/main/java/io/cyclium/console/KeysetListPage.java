package io.cyclium.console;

import jakarta.faces.context.ExternalContext;
import jakarta.faces.context.FacesContext;
import java.io.IOException;
import java.io.Serializable;

/**
 * A console list whose filters, page size and position live in its URL (view parameters): the
 * Filter button redirects to the URL of the filtered first page, and the paging links are plain
 * GETs to the URL of the newest, the newer and the older page, so every page can be bookmarked.
 * A page names its URL; this class walks it.
 */
public abstract class KeysetListPage<T> implements Serializable {

    private static final long serialVersionUID = 1L;

    protected final KeysetPager<T> pager = new KeysetPager<>();

    /** This list (its filters and page size) at a cursor and its trail back: what the paging links point at. */
    abstract String url(String cursor, String back);

    /** Applies the filters: on to the URL of their newest page. */
    public void apply() throws IOException {
        ExternalContext external = FacesContext.getCurrentInstance().getExternalContext();
        external.redirect(external.getRequestContextPath() + "/" + url(null, null));
    }

    public String getNewestUrl() {
        return url(null, null);
    }

    public String getNewerUrl() {
        return url(pager.getPreviousCursor(), pager.getPreviousBack());
    }

    public String getOlderUrl() {
        return url(pager.getNextCursor(), pager.getNextBack());
    }

    /** The table: rows, and whether older (next) or newer (previous) pages exist. */
    public KeysetPager<T> getPager() {
        return pager;
    }
}
