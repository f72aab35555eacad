package io.cyclium.workflow;

import io.cyclium.telemetry.Telemetry;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@code workflow_instances} gauges: instances in flight per workflow and status (pending,
 * running, blocked), of the whole cluster, as last counted. A scrape reads these numbers, never
 * the database; every node counts after each of its reconciles, so every node reports the same
 * numbers within a recovery interval (take the maximum across nodes, not the sum).
 */
final class InstanceGauges {

    private final Telemetry telemetry;
    // workflow → status → count; a gauge is registered the first time its workflow is counted
    private final Map<String, Map<String, AtomicLong>> counts = new ConcurrentHashMap<>();

    InstanceGauges(Telemetry telemetry) {
        this.telemetry = telemetry;
    }

    /**
     * One count: {@code rows} are (workflow id, status, count) of the in-flight instances;
     * {@code workflows} the ones deployed here, whose statuses without a row read 0 (so a workflow
     * whose last instance finished drops to 0 instead of keeping its last number).
     */
    void counted(Collection<Object[]> rows, Collection<String> workflows) {
        workflows.forEach(this::gauges);
        counts.values().forEach(byStatus -> byStatus.values().forEach(n -> n.set(0)));
        for (Object[] r : rows) {
            AtomicLong n = gauges((String) r[0]).get((String) r[1]);
            if (n != null) {
                n.set(((Number) r[2]).longValue());
            }
        }
    }

    private Map<String, AtomicLong> gauges(String workflow) {
        return counts.computeIfAbsent(workflow, w -> {
            Map<String, AtomicLong> byStatus = new ConcurrentHashMap<>();
            for (String status : InstanceStatus.IN_FLIGHT) {
                AtomicLong n = new AtomicLong();
                byStatus.put(status, n);
                telemetry.gauge("workflow_instances", n::get, "workflow", w, "status", status);
            }
            return byStatus;
        });
    }
}
