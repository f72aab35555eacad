package io.cyclium.console;

import io.cyclium.audit.AuditAction;
import io.cyclium.audit.Outcome;
import io.cyclium.audit.SubjectKind;
import io.cyclium.operations.AuditFilter;
import io.cyclium.operations.AuditQueries;
import io.cyclium.operations.AuditRecord;
import io.cyclium.operations.AuditTrail;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.util.Arrays;
import java.util.List;

/**
 * Backs audit.xhtml: who did what, newest first, filtered by user, action, subject and outcome, and
 * keyset-paged like the episode list. Filters, page size and cursor live in the URL, so a filtered
 * page can be bookmarked (an episode's own trail: {@code audit.xhtml?subject=<id>}).
 */
@Named("auditPage")
@ViewScoped
public class AuditPage extends KeysetListPage<AuditRecord> {

    private static final long serialVersionUID = 1L;

    @Inject
    AuditTrail audit;

    private String user;
    private String action;
    private String subjectKind;
    private String subject;
    private String outcome;
    private int pageSize = 25;

    @Override
    String url(String cursor, String back) {
        return PageUrl.of("audit.xhtml").with("user", user).with("action", action).with("subjectKind", subjectKind)
                .with("subject", subject).with("outcome", outcome).with("size", pageSize).with("cursor", cursor)
                .with("back", back).toString();
    }

    public void load() {
        AuditQueries.Page page = ConsoleMessages.attempt(() -> audit.page(
                AuditFilter.parse(user, action, subjectKind, subject, outcome, null, null), pager.cursor(), capped(pageSize)));
        pager.show(page == null ? List.of() : page.records(), page == null ? null : page.nextCursor());
    }

    /**
     * The console page that shows a row's subject (relative to the console's root), or null when it
     * has none (a refused start names no episode).
     */
    public String subjectUrl(AuditRecord r) {
        SubjectKind kind = SubjectKind.parse(r.subjectKind()).orElse(null);
        if (kind == null) {
            return null;
        }
        return switch (kind) {
            case EPISODE -> r.subjectId() == null ? null : PageUrl.of("episode.xhtml").with("id", r.subjectId()).toString();
            case OUTPUT -> r.episodeId() == null ? null : PageUrl.of("episode.xhtml").with("id", r.episodeId()).toString();
            case INSTANCE -> PageUrl.of("workflow.xhtml").with("id", r.subjectId()).toString();
            case WORKFLOW -> "workflows.xhtml";
            case ACTOR -> PageUrl.of("actors.xhtml").with("actor", r.subjectId()).toString();
            case NODE, RECOVERY -> "actors.xhtml";
            case RETENTION -> "maintenance.xhtml";
            case BULK -> r.subjectId() == null ? null : PageUrl.of("bulk.xhtml").with("id", r.subjectId()).toString();
        };
    }

    public List<String> getActions() {
        return Arrays.stream(AuditAction.values()).map(AuditAction::wire).toList();
    }

    public List<String> getSubjectKinds() {
        return Arrays.stream(SubjectKind.values()).map(SubjectKind::wire).toList();
    }

    public List<String> getOutcomes() {
        return Arrays.stream(Outcome.values()).map(Outcome::wire).toList();
    }

    public List<Integer> getPageSizes() {
        return List.of(10, 25, 50, 100, AuditQueries.MAX_PAGE);
    }

    private static int capped(int size) {
        return Math.max(1, Math.min(size, AuditQueries.MAX_PAGE));
    }

    public int getPageSize() {
        return pageSize;
    }

    public void setPageSize(int pageSize) {
        this.pageSize = capped(pageSize);
    }

    public String getUser() {
        return user;
    }

    public void setUser(String user) {
        this.user = user;
    }

    public String getAction() {
        return action;
    }

    public void setAction(String action) {
        this.action = action;
    }

    public String getSubjectKind() {
        return subjectKind;
    }

    public void setSubjectKind(String subjectKind) {
        this.subjectKind = subjectKind;
    }

    public String getSubject() {
        return subject;
    }

    public void setSubject(String subject) {
        this.subject = subject;
    }

    public String getOutcome() {
        return outcome;
    }

    public void setOutcome(String outcome) {
        this.outcome = outcome;
    }
}
