package io.cyclium.api;

import io.cyclium.finding.FindingQueries;
import io.cyclium.finding.FindingView;
import io.cyclium.finding.Findings;
import io.cyclium.problem.Problem;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/**
 * {@code GET /cyclium/api/findings?status=&class=&env=&limit=}. Without {@code env} every env is
 * listed; {@code env=} with a value lists that env only ({@code env=-} means the unset env).
 */
@Path("findings")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class FindingResource {

    @Inject
    Findings findings;

    @GET
    public List<FindingView> list(@QueryParam("status") String status, @QueryParam("class") String findingClass,
            @QueryParam("env") String env, @QueryParam("limit") String limit) {
        boolean anyEnv = env == null;
        String scoped = "-".equals(env) ? null : env;
        String wanted = blankToNull(status) == null ? "active" : status.trim();
        if (!FindingQueries.STATUSES.contains(wanted)) {
            throw Problem.invalid("status", "status \"" + (wanted.length() > 40 ? wanted.substring(0, 40) + "…" : wanted)
                    + "\" is not one of " + new java.util.TreeSet<>(FindingQueries.STATUSES));
        }
        return findings.list(wanted, blankToNull(findingClass), scoped, anyEnv, PageLimit.parse(limit));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
