package io.cyclium.console;

import io.cyclium.episode.EpisodeQueries;
import io.cyclium.episode.EpisodeView;
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

/** Backs the dashboard: counts by status and severity, nodes, recent episodes and active findings, as views. */
@Named("overview")
@RequestScoped
public class OverviewPage {

    static final int ROWS = 50;

    @EJB
    EpisodeQueries episodes;

    @EJB
    FindingQueries findings;

    @EJB
    NodeQueries nodes;

    @Inject
    NodeIdentity identity;



    private List<EpisodeView> recentEpisodes;
    private List<FindingView> activeFindings;
    private List<NodeView> nodeRows;

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

    public List<NodeView> getNodes() {
        if (nodeRows == null) {
            nodeRows = nodes.all();
        }
        return nodeRows;
    }
}
