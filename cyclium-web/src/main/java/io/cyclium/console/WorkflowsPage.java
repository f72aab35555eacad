package io.cyclium.console;

import io.cyclium.audit.AuditAction;
import io.cyclium.problem.Problem;
import io.cyclium.store.JsonText;
import io.cyclium.workflow.InstanceView;
import io.cyclium.workflow.WorkflowQueries;
import io.cyclium.workflow.WorkflowView;
import io.cyclium.workflow.Workflows;
import jakarta.annotation.PostConstruct;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.json.JsonObject;
import java.io.Serializable;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Backs workflows.xhtml: the definitions (origin, enabled, instances by status, success rate, last
 * start), the latest instances with filters, and for admins: enable/disable and start an instance
 * (the whole DAG or an outcome) with a JSON payload.
 */
@Named("workflowsPage")
@ViewScoped
public class WorkflowsPage implements Serializable {

    private static final long serialVersionUID = 1L;
    static final int INSTANCES_SHOWN = 50;
    static final List<String> LIFECYCLE = List.of("pending", "running", "blocked", "completed", "failed", "canceled");

    @Inject
    Workflows workflows;

    @Inject
    io.cyclium.operations.PauseCommands pauses;

    @Inject
    ConsoleUser user;

    private String workflow;
    private String status;
    private String startWorkflow;
    private String outcome;
    private String subject;
    private String payload = "{}";
    private transient List<WorkflowView> definitions;
    private transient List<InstanceView> instances;

    @PostConstruct
    void init() {
        refresh();
    }

    public void refresh() {
        List<WorkflowView> d = ConsoleMessages.attempt(() -> workflows.workflows());
        definitions = d == null ? List.of() : d;
        List<InstanceView> i = ConsoleMessages.attempt(() -> workflows.instances(new WorkflowQueries.InstanceFilter(
                blank(workflow), blank(status), null, null, null, null), INSTANCES_SHOWN));
        instances = i == null ? List.of() : i;
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /** Pauses or resumes the workflow cluster-wide (admin; the same command as the API's). */
    public void setPaused(String id, boolean paused) {
        if (user.act((paused ? "pause" : "resume") + " workflow " + id, paused ? AuditAction.WORKFLOW_PAUSE
                : AuditAction.WORKFLOW_RESUME, id, () -> pauses.pauseWorkflow(id, paused, user.getName())) != null) {
            ConsoleMessages.info("Workflow " + id + (paused ? " paused on every node: no new step starts until it is resumed."
                    : " resumed: its queued steps start."));
        }
        refresh();
    }

    public void setEnabled(String id, boolean enabled) {
        if (user.act((enabled ? "enable" : "disable") + " workflow " + id, enabled ? AuditAction.WORKFLOW_ENABLE
                : AuditAction.WORKFLOW_DISABLE, id, () -> workflows.setEnabled(id, enabled)) != null) {
            ConsoleMessages.info("Workflow " + id + (enabled ? " enabled." : " disabled."));
        }
        refresh();
    }

    public String start() {
        InstanceView started = user.act("start workflow " + startWorkflow, AuditAction.WORKFLOW_START, startWorkflow, () -> {
            JsonObject body;
            try {
                body = JsonText.parseObject(payload == null || payload.isBlank() ? "{}" : payload);
            } catch (RuntimeException e) {
                throw Problem.invalid("payload", "the payload is not a JSON object: " + e.getMessage());
            }
            return workflows.start(startWorkflow, blank(outcome), body, blank(subject), user.getName());
        });
        refresh();
        return started == null ? null : "/workflow?faces-redirect=true&id=" + started.id();
    }

    public List<WorkflowView> getDefinitions() {
        if (definitions == null) {
            refresh();
        }
        return definitions;
    }

    public List<InstanceView> getInstances() {
        if (instances == null) {
            refresh();
        }
        return instances;
    }

    /** One instance count of a workflow, shown as a badge: "3 completed". */
    public record StatusCount(String status, long count) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /**
     * A workflow's instances by status in lifecycle order (in flight first, then how they ended;
     * a status the console does not know last, by name), zero counts left out.
     */
    public List<StatusCount> counts(Map<String, Long> byStatus) {
        if (byStatus == null) {
            return List.of();
        }
        return byStatus.entrySet().stream().filter(e -> e.getValue() != null && e.getValue() > 0)
                .sorted(Comparator.comparingInt((Map.Entry<String, Long> e) -> lifecycleRank(e.getKey()))
                        .thenComparing(Map.Entry::getKey))
                .map(e -> new StatusCount(e.getKey(), e.getValue())).toList();
    }

    private static int lifecycleRank(String status) {
        int i = LIFECYCLE.indexOf(status);
        return i < 0 ? LIFECYCLE.size() : i;
    }

    public List<String> getStatuses() {
        return LIFECYCLE;
    }

    public String percent(Double rate) {
        return rate == null ? "–" : Math.round(rate * 100) + " %";
    }

    public String getWorkflow() {
        return workflow;
    }

    public void setWorkflow(String workflow) {
        this.workflow = workflow;
    }

    public String getStatus() {
        return status;
    }

    public void setStatus(String status) {
        this.status = status;
    }

    public String getStartWorkflow() {
        return startWorkflow;
    }

    public void setStartWorkflow(String startWorkflow) {
        this.startWorkflow = startWorkflow;
    }

    public String getOutcome() {
        return outcome;
    }

    public void setOutcome(String outcome) {
        this.outcome = outcome;
    }

    public String getSubject() {
        return subject;
    }

    public void setSubject(String subject) {
        this.subject = subject;
    }

    public String getPayload() {
        return payload;
    }

    public void setPayload(String payload) {
        this.payload = payload;
    }
}
