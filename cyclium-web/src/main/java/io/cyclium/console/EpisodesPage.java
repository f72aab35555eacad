package io.cyclium.console;

import io.cyclium.operations.EpisodeFilter;
import io.cyclium.operations.EpisodeListing;
import io.cyclium.operations.EpisodePage;
import io.cyclium.operations.EpisodeService;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.operations.EpisodeView;
import jakarta.inject.Inject;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Named;
import java.util.Arrays;
import java.util.List;

/**
 * Backs episodes.xhtml: filters and a keyset-paged table (newer / older), one query per page and
 * no count, so the page is as fast at a million episodes as at ten. Every filter, the page size
 * and the cursor live in the URL (view parameters): the Filter button redirects to the URL of
 * the filtered first page, and the paging links are plain GETs.
 */
@Named("episodesPage")
@ViewScoped
public class EpisodesPage extends KeysetListPage<EpisodeView> {

    private static final long serialVersionUID = 1L;

    static final List<Integer> PAGE_SIZES = List.of(10, 25, 50, 100, EpisodeListing.MAX_PAGE);

    @Inject
    EpisodeService episodes;

    @Inject
    io.cyclium.operations.BulkCommands bulk;

    @Inject
    ConsoleUser user;

    /** The bulk action an admin picked for the filtered episodes, and its preview (null until asked). */
    private String bulkAction = io.cyclium.operations.BulkKind.CANCEL.wire();
    private io.cyclium.operations.BulkPreview bulkPreview;

    private String actor;
    private String expectation;
    private String status;
    private String stack;
    private String env;
    private String from;
    private String to;
    private int pageSize = 25;

    @Override
    String url(String cursor, String back) {
        return PageUrl.of("episodes.xhtml").with("actor", actor).with("expectation", expectation).with("status", status)
                .with("stack", stack).with("env", env).with("from", from).with("to", to).with("size", pageSize)
                .with("cursor", cursor).with("back", back).toString();
    }

    /** Reads the page the URL names (view action), and again on a pushed refresh. */
    public void load() {
        EpisodePage page = ConsoleMessages.attempt(() -> episodes.page(
                EpisodeFilter.parse(actor, expectation, status, stack, env, from, to), pager.cursor(),
                EpisodeListing.capped(pageSize)));
        pager.show(page == null ? List.of() : page.episodes(), page == null ? null : page.nextCursor());
    }

    /** Whether any filter is set: only then is a bulk action offered (never over every episode). */
    public boolean isFiltered() {
        return !io.cyclium.operations.BulkFilters.toMap(filterOrAny()).isEmpty();
    }

    private EpisodeFilter filterOrAny() {
        try {
            return EpisodeFilter.parse(actor, expectation, status, stack, env, from, to);
        } catch (io.cyclium.problem.Problem bad) {
            return EpisodeFilter.ANY; // the list already shows the message
        }
    }

    /**
     * Previews the picked bulk action over the filter the page shows (its URL's, not fields edited
     * since): the count, the cap and the token the start confirms. Changes nothing.
     */
    public void previewBulk() {
        bulkPreview = ConsoleMessages.attempt(() -> bulk.preview(io.cyclium.operations.BulkKind.parse(bulkAction),
                io.cyclium.operations.BulkFilters.of(filterMap())));
    }

    /**
     * Starts the previewed action, confirmed with its token (admin; audited as bulk.start); on
     * success opens the action's page, where its progress and per-item results show.
     */
    public String startBulk() {
        io.cyclium.operations.BulkPreview p = bulkPreview;
        if (p == null || p.token() == null) {
            ConsoleMessages.error("Preview the bulk action first.");
            return null;
        }
        io.cyclium.operations.BulkActionView started = user.act(p.action() + " of " + p.count() + " episodes",
                io.cyclium.audit.AuditAction.BULK_START, null, () -> bulk.start(io.cyclium.operations.BulkKind.parse(p.action()),
                        io.cyclium.operations.BulkFilters.of(p.filter()), null, p.token(), user.getName()));
        bulkPreview = null;
        if (started == null) {
            return null;
        }
        return "/bulk?faces-redirect=true&id=" + started.id();
    }

    private java.util.Map<String, String> filterMap() {
        java.util.Map<String, String> m = new java.util.LinkedHashMap<>();
        m.put("actor", actor);
        m.put("expectation", expectation);
        m.put("status", status);
        m.put("stack", stack);
        m.put("env", env);
        m.put("from", from);
        m.put("to", to);
        return m;
    }

    public List<String> getBulkActions() {
        return Arrays.stream(io.cyclium.operations.BulkKind.values()).map(io.cyclium.operations.BulkKind::wire).toList();
    }

    public String getBulkAction() {
        return bulkAction;
    }

    public void setBulkAction(String bulkAction) {
        if (!java.util.Objects.equals(this.bulkAction, bulkAction)) {
            bulkPreview = null; // a preview confirms one action only
        }
        this.bulkAction = bulkAction;
    }

    public io.cyclium.operations.BulkPreview getBulkPreview() {
        return bulkPreview;
    }

    public List<String> getStatuses() {
        return Arrays.stream(EpisodeStatus.values()).map(EpisodeStatus::wire).toList();
    }

    public List<Integer> getPageSizes() {
        return PAGE_SIZES;
    }

    public int getPageSize() {
        return pageSize;
    }

    public void setPageSize(int pageSize) {
        this.pageSize = EpisodeListing.capped(pageSize);
    }


    public String getActor() {
        return actor;
    }

    public void setActor(String actor) {
        this.actor = actor;
    }

    public String getExpectation() {
        return expectation;
    }

    public void setExpectation(String expectation) {
        this.expectation = expectation;
    }

    public String getStatus() {
        return status;
    }

    public void setStatus(String status) {
        this.status = status;
    }

    public String getStack() {
        return stack;
    }

    public void setStack(String stack) {
        this.stack = stack;
    }

    public String getEnv() {
        return env;
    }

    public void setEnv(String env) {
        this.env = env;
    }

    public String getFrom() {
        return from;
    }

    public void setFrom(String from) {
        this.from = from;
    }

    public String getTo() {
        return to;
    }

    public void setTo(String to) {
        this.to = to;
    }
}
