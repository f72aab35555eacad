package io.cyclium.console;

import io.cyclium.operations.TriggerRequests;

import io.cyclium.finding.FindingQueries;
import io.cyclium.finding.FindingView;
import io.cyclium.finding.Findings;
import io.cyclium.episode.TriggerRequestStore;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.util.List;

/**
 * Backs findings.xhtml and trigger-requests.xhtml: newest first, a status filter (a view
 * parameter, {@code ?status=}, so each filter has its own URL), at most {@link #ROWS} rows.
 */
@Named("lists")
@ViewScoped
public class ListsPage implements java.io.Serializable {

    private static final long serialVersionUID = 1L;

    static final int ROWS = 200;

    @Inject
    Findings findings;

    @Inject
    TriggerRequests requests;

    private String findingStatus = "active";
    private String requestStatus;

    public List<FindingView> getFindings() {
        // Set.of(...).contains(null) throws: check for null first
        String status = findingStatus != null && FindingQueries.STATUSES.contains(findingStatus) ? findingStatus : "active";
        return findings.list(status, null, null, true, ROWS);
    }

    public List<String> getFindingStatuses() {
        return List.copyOf(new java.util.TreeSet<>(FindingQueries.STATUSES));
    }

    public List<TriggerRequestStore.Request> getTriggerRequests() {
        String status = requestStatus != null && TriggerRequests.STATUSES.contains(requestStatus) ? requestStatus : null;
        return requests.recent(status, ROWS);
    }

    public List<String> getRequestStatuses() {
        return List.copyOf(new java.util.TreeSet<>(TriggerRequests.STATUSES));
    }

    /** The finding status shown (active when none or an unknown one is asked for). */
    public String getShownFindingStatus() {
        return findingStatus != null && FindingQueries.STATUSES.contains(findingStatus) ? findingStatus : "active";
    }

    public String getFindingStatus() {
        return findingStatus;
    }

    public void setFindingStatus(String findingStatus) {
        this.findingStatus = findingStatus;
    }

    public String getRequestStatus() {
        return requestStatus;
    }

    public void setRequestStatus(String requestStatus) {
        this.requestStatus = requestStatus;
    }
}
