package io.cyclium.console;

import io.cyclium.claims.Claims;
import io.cyclium.operations.EpisodeQueries;
import io.cyclium.operations.EpisodeThroughput;
import io.cyclium.operations.EpisodeView;
import io.cyclium.finding.FindingQueries;
import io.cyclium.finding.FindingView;
import io.cyclium.node.NodeIdentity;
import io.cyclium.node.NodeQueries;
import io.cyclium.node.NodeView;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.util.List;
import java.util.Map;

/**
 * Backs the dashboard: counts by status and severity, the last hour's throughput chart, claim
 * statistics, nodes, recent episodes and active findings, as views.
 */
@Named("overview")
@RequestScoped
public class OverviewPage {

    static final int ROWS = 50;
    static final int CHART_MINUTES = 60;

    @EJB
    EpisodeQueries episodes;

    @EJB
    FindingQueries findings;

    @EJB
    NodeQueries nodes;

    @Inject
    NodeIdentity identity;

    @Inject
    Claims claims;

    private List<EpisodeView> recentEpisodes;
    private List<FindingView> activeFindings;
    private List<NodeView> nodeRows;
    private EpisodeThroughput.Window throughput;
    private Claims.Stats claimStats;

    public String getThisNode() {
        return identity.name();
    }

    public List<EpisodeView> getRecentEpisodes() {
        if (recentEpisodes == null) {
            recentEpisodes = episodes.recent(ROWS);
        }
        return recentEpisodes;
    }

    public List<FindingView> getActiveFindings() {
        if (activeFindings == null) {
            activeFindings = findings.active(ROWS);
        }
        return activeFindings;
    }

    /** A labelled count for the dashboard tiles. */
    public record Count(String name, long count) {
    }

    public List<Count> getEpisodesByStatus() {
        return counts(episodes.countsByStatus());
    }

    public List<Count> getFindingsBySeverity() {
        return counts(findings.activeCountsBySeverity());
    }

    private static List<Count> counts(Map<String, Long> counts) {
        return counts.entrySet().stream().map(e -> new Count(e.getKey(), e.getValue())).toList();
    }

    /** The last hour, per minute, on the database clock. */
    public EpisodeThroughput.Window getThroughput() {
        if (throughput == null) {
            throughput = episodes.throughput(CHART_MINUTES);
        }
        return throughput;
    }

    /** Chart.js configuration for {@code <p:chart>}. */
    public String getThroughputChart() {
        return ThroughputChart.config(getThroughput());
    }

    public Claims.Stats getClaimStats() {
        if (claimStats == null) {
            claimStats = claims.stats();
        }
        return claimStats;
    }

    /** This node's count of one claim outcome since it started (0 when it never happened). */
    public long claimOutcome(String outcome) {
        return getClaimStats().outcomes().getOrDefault(outcome, 0L);
    }

    public List<NodeView> getNodes() {
        if (nodeRows == null) {
            nodeRows = nodes.all();
        }
        return nodeRows;
    }
}
