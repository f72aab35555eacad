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
