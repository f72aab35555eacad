package io.cyclium.console;

import io.cyclium.claims.ClaimQueries;
import io.cyclium.claims.ClaimState;
import io.cyclium.claims.Claims;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;

/**
 * Backs claims.xhtml: the work-claims table with filters, keyset-paged by key (next / previous),
 * read-only for every role. Seconds left are computed against the database's clock. Filters and
 * cursor are view parameters: every page of every filter has its own URL.
 */
@Named("claimsPage")
@ViewScoped
public class ClaimsPage implements Serializable {

    private static final long serialVersionUID = 1L;

    static final int PAGE_SIZE = 50;

    @Inject
    Claims claims;

    private String owner;
    private String workType;
    private String state;
    private String keyPrefix;


    private final KeysetPager<ClaimQueries.ClaimRow> pager = new KeysetPager<>();
    private LocalDateTime databaseNow;

    /** Applies the filters: on to the URL of their first page. */
    public void apply() throws java.io.IOException {
        jakarta.faces.context.ExternalContext external = jakarta.faces.context.FacesContext.getCurrentInstance().getExternalContext();
        external.redirect(external.getRequestContextPath() + "/" + url(null, null));
    }

    /** These filters at a cursor; what the paging links point at. */
    String url(String cursor, String back) {
        return PageUrl.of("claims.xhtml").with("owner", owner).with("workType", workType).with("state", state)
                .with("keyPrefix", keyPrefix).with("cursor", cursor).with("back", back).toString();
    }

    public String getPreviousUrl() {
        return url(pager.getPreviousCursor(), pager.getPreviousBack());
    }

    public String getNextUrl() {
        return url(pager.getNextCursor(), pager.getNextBack());
    }

    /** The push or fallback poll: the same page again, fresh (leases tick down). */
    public void refresh() {
        load();
    }

    /** Reads the page the URL names (view action). */
    public void load() {
        ClaimQueries.ClaimPage page = ConsoleMessages.attempt(() -> claims.page(
                new ClaimQueries.Filter(owner, workType, state, keyPrefix), pager.cursor(), PAGE_SIZE));
        pager.show(page == null ? List.of() : page.claims(), page == null ? null : page.nextCursor());
        databaseNow = page == null ? null : page.databaseNow();
    }

    /** The table: rows, and whether next or previous pages exist. */
    public KeysetPager<ClaimQueries.ClaimRow> getPager() {
        return pager;
    }

    public LocalDateTime getDatabaseNow() {
        return databaseNow;
    }

    public List<String> getStates() {
        return Arrays.stream(ClaimState.values()).map(ClaimState::wireName).toList();
    }


    public String getOwner() {
        return owner;
    }

    public void setOwner(String owner) {
        this.owner = owner;
    }

    public String getWorkType() {
        return workType;
    }

    public void setWorkType(String workType) {
        this.workType = workType;
    }

    public String getState() {
        return state;
    }

    public void setState(String state) {
        this.state = state;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }
}
