package io.cyclium.console.security;

import io.cyclium.audit.AuditAction;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which operator action an API request would have been, for the audit row of one the container
 * refused before any resource ran (a viewer's change: web.xml gives API changes to cyclium-admin
 * only, so {@link RefusalPage} is where such a request ends). The resources name their actions
 * themselves when they run; this table names them for the requests that never reach them, by
 * method and path — {@code RefusedApiActionTest} checks that every change the API offers is here.
 */
final class RefusedApiAction {

    /** The subject of an action on the node itself (a node mode switch): the node the request reached. */
    static final String THIS_NODE = "\0this node";

    private record Route(String method, Pattern path, AuditAction action) {
    }

    private static final String ID = "([^/]+)";

    private static final List<Route> ROUTES = List.of(
            route("POST", "/episodes", AuditAction.EPISODE_START),
            route("POST", "/episodes/" + ID + "/cancel", AuditAction.EPISODE_CANCEL),
            route("POST", "/episodes/" + ID + "/restart", AuditAction.EPISODE_RESTART),
            route("POST", "/episodes/" + ID + "/approve", AuditAction.EPISODE_APPROVE),
            route("POST", "/episodes/" + ID + "/deny", AuditAction.EPISODE_DENY),
            route("POST", "/episodes/" + ID + "/resolve-wait", AuditAction.EPISODE_RESOLVE_WAIT),
            route("POST", "/episodes/" + ID + "/signals/[^/]+", AuditAction.EPISODE_SIGNAL),
            route("POST", "/outputs/" + ID + "/retry", AuditAction.OUTPUT_RETRY),
            route("POST", "/actors/" + ID + "/pause", AuditAction.ACTOR_PAUSE),
            route("POST", "/actors/" + ID + "/resume", AuditAction.ACTOR_RESUME),
            route("POST", "/actors/([^/]+/expectations/[^/]+)/pause", AuditAction.EXPECTATION_PAUSE),
            route("POST", "/actors/([^/]+/expectations/[^/]+)/resume", AuditAction.EXPECTATION_RESUME),
            route("PUT", "/mode", AuditAction.NODE_MODE),
            route("PUT", "/mode/actors/" + ID, AuditAction.ACTOR_MODE),
            route("DELETE", "/mode/actors/" + ID, AuditAction.ACTOR_MODE_CLEAR),
            route("POST", "/maintenance/retention", AuditAction.RETENTION_RUN),
            route("POST", "/recovery/sweep", AuditAction.RECOVERY_SWEEP),
            route("PUT", "/workflows/" + ID, AuditAction.WORKFLOW_PUT),
            route("POST", "/workflows/" + ID + "/enable", AuditAction.WORKFLOW_ENABLE),
            route("POST", "/workflows/" + ID + "/disable", AuditAction.WORKFLOW_DISABLE),
            route("POST", "/workflows/" + ID + "/instances", AuditAction.WORKFLOW_START),
            route("POST", "/workflows/" + ID + "/pause", AuditAction.WORKFLOW_PAUSE),
            route("POST", "/workflows/" + ID + "/resume", AuditAction.WORKFLOW_RESUME),
            route("POST", "/workflow-instances/" + ID + "/cancel", AuditAction.INSTANCE_CANCEL),
            route("POST", "/workflow-instances/" + ID + "/resume", AuditAction.INSTANCE_RESUME),
            route("POST", "/workflow-instances/" + ID + "/steps/[^/]+/retry", AuditAction.INSTANCE_STEP_RETRY),
            route("POST", "/workflow-instances/" + ID + "/steps/[^/]+/approve", AuditAction.INSTANCE_STEP_APPROVE),
            route("POST", "/bulk-actions", AuditAction.BULK_START),
            route("POST", "/bulk-actions/" + ID + "/cancel", AuditAction.BULK_CANCEL),
            route("POST", "/workflow-instances/" + ID + "/signals/[^/]+", AuditAction.INSTANCE_SIGNAL));

    /** The action and its subject (null when the action has none; {@link #THIS_NODE} for the node). */
    record Match(AuditAction action, String subjectId) {
    }

    private RefusedApiAction() {
    }

    /** The action {@code method} on {@code path} (below {@code /api}, as sent) would have been; empty for reads and unknown paths. */
    static Optional<Match> of(String method, String path) {
        String decoded = URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8).replaceAll(";[^/]*", "");
        String trimmed = decoded.length() > 1 && decoded.endsWith("/") ? decoded.substring(0, decoded.length() - 1) : decoded;
        for (Route r : ROUTES) {
            Matcher m = r.path().matcher(trimmed);
            if (r.method().equals(method) && m.matches()) {
                String subject = m.groupCount() > 0 ? shorten(m.group(1))
                        : r.action() == AuditAction.NODE_MODE ? THIS_NODE : null;
                return Optional.of(new Match(r.action(), subject));
            }
        }
        return Optional.empty();
    }

    private static Route route(String method, String path, AuditAction action) {
        return new Route(method, Pattern.compile(path), action);
    }

    /** A subject id as long as the audit trail keeps (a forged path may be any length). */
    private static String shorten(String s) {
        return s.length() > 200 ? s.substring(0, 200) : s;
    }
}
