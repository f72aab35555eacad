package io.cyclium.console;

import io.cyclium.actor.ActorHost;
import io.cyclium.actor.ActorView;
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

/** Backs the overview page: nodes, recent episodes and active findings, as views. */
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

    @Inject
    ActorHost host;

    private List<ActorView> actorRows;

    /** Every deployed actor, whether it runs on this node, and why not. */
    public List<ActorView> getActors() {
        if (actorRows == null) {
            actorRows = host.views();
        }
        return actorRows;
    }

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

    public List<NodeView> getNodes() {
        if (nodeRows == null) {
            nodeRows = nodes.all();
        }
        return nodeRows;
    }
}
