package io.cyclium.console;

import io.cyclium.audit.AuditAction;
import io.cyclium.audit.PendingAudit;
import io.cyclium.problem.Problem;
import io.cyclium.workflow.InstanceDetail;
import io.cyclium.workflow.Workflows;
import jakarta.faces.context.FacesContext;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.util.function.Supplier;

/**
 * Backs workflow.xhtml: one instance with its live DAG picture ({@link WorkflowDiagram}), steps,
 * transition journal and statistics, and the admin's actions (cancel, resume, retry a failed step,
 * approve a gated one). Opened by URL ({@code workflow.xhtml?id=…}); the page polls while the
 * instance is in flight.
 */
@Named("workflowInstancePage")
@ViewScoped
public class WorkflowInstancePage implements Serializable {

    private static final long serialVersionUID = 1L;

    @Inject
    Workflows workflows;

    @Inject
    ConsoleUser user;

    /** Request-scoped: "now" on the database clock for the picture's retry times, read once per render. */
    @Inject
    ConsoleClock clock;

    private String id;
    private String missing;
    private transient InstanceDetail detail;

    public void load() {
        detail = null;
        missing = null;
        if (id == null || id.isBlank()) {
            missing = "No instance id given.";
            return;
        }
        try {
            detail = workflows.detail(id);
        } catch (Problem p) {
            missing = p.getMessage();
        }
    }

    public InstanceDetail getDetail() {
        if (detail == null && missing == null) {
            load();
        }
        return detail;
    }

    public boolean isInFlight() {
        InstanceDetail d = getDetail();
        return d != null && java.util.List.of("pending", "running", "blocked").contains(d.instance().status());
    }

    public String getDiagram() {
        InstanceDetail d = getDetail();
        if (d == null) {
            return "";
        }
        String context = FacesContext.getCurrentInstance().getExternalContext().getRequestContextPath();
        return WorkflowDiagram.svg(d.steps(), episode -> context + "/episode.xhtml?id=" + episode, clock.getNow());
    }

    public void cancel() {
        act("cancel workflow instance " + id, AuditAction.INSTANCE_CANCEL, () -> workflows.cancel(id, user.getName()),
                "Instance canceled.");
    }

    public void resume() {
        act("resume workflow instance " + id, AuditAction.INSTANCE_RESUME, () -> workflows.resume(id, user.getName()),
                "Instance resumed.");
    }

    public void retry(String step) {
        act("retry step " + step + " of " + id, AuditAction.INSTANCE_STEP_RETRY, () -> {
            PendingAudit.detail("step " + step);
            return workflows.retryStep(id, step, user.getName());
        }, "Step " + step + " queued again.");
    }

    public void approve(String step) {
        act("approve step " + step + " of " + id, AuditAction.INSTANCE_STEP_APPROVE, () -> {
            PendingAudit.detail("step " + step);
            return workflows.approve(id, step, user.getName());
        }, "Step " + step + " approved.");
    }

    private void act(String what, AuditAction audited, Supplier<InstanceDetail> action, String done) {
        if (user.act(what, audited, id, action) != null) {
            ConsoleMessages.info(done);
        }
        load();
    }

    public String getId() {
        return id;
    }

    public void setId(String id) {
        this.id = id;
    }

    public String getMissing() {
        return missing;
    }
}
