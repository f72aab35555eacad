package io.cyclium.console;

import io.cyclium.audit.AuditAction;
import io.cyclium.retention.RetentionOperations;
import io.cyclium.retention.RetentionQueries;
import jakarta.annotation.PostConstruct;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.util.List;

/**
 * Backs maintenance.xhtml: the retention windows, every node's retention runs with their steps'
 * counts, and (admins) "run retention now".
 */
@Named("maintenancePage")
@ViewScoped
public class MaintenancePage implements Serializable {

    private static final long serialVersionUID = 1L;
    static final int RUNS_SHOWN = 30;

    @Inject
    RetentionOperations retention;

    @Inject
    ConsoleUser user;

    private List<RetentionQueries.Execution> executions = List.of();

    @PostConstruct
    void init() {
        refresh();
    }

    public void refresh() {
        List<RetentionQueries.Execution> read = ConsoleMessages.attempt(() -> retention.executions(RUNS_SHOWN));
        executions = read == null ? List.of() : read;
    }

    public void runNow() {
        RetentionOperations.Started s = user.act("run retention now", AuditAction.RETENTION_RUN, null,
                () -> retention.runNow(user.getName()));
        if (s != null) {
            ConsoleMessages.info("Retention run " + s.runKey() + " started on " + s.node() + " (batch execution "
                    + s.batchExecutionId() + ").");
        }
        refresh();
    }

    public RetentionOperations.Windows getWindows() {
        return retention.windows();
    }

    public List<RetentionQueries.Execution> getExecutions() {
        return executions;
    }
}
