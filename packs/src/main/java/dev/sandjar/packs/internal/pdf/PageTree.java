package dev.sandjar.packs.internal.pdf;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.apache.pdfbox.cos.COSArray;
import org.apache.pdfbox.cos.COSBase;
import org.apache.pdfbox.cos.COSDictionary;
import org.apache.pdfbox.cos.COSName;

/**
 * A PDF's page tree checked to be a tree before PDFBox walks it. PDFBox finds page {@code n} by
 * descending through each node's {@code /Count}, and iterates pages skipping nodes it has seen: on
 * a tree with a cycle, a shared node or a wrong count its {@code getPage} throws an {@code
 * IllegalStateException} ("Possible recursion found") and its page count is the root's claim, not
 * the pages there are. Nodes and kids are recognised as PDFBox recognises them ({@code
 * PDPageTree}): a node is a dictionary of type {@code /Pages} or one with {@code /Kids}; kids that
 * are not dictionaries are skipped.
 */
final class PageTree {
    private PageTree() {}

    /** One node on the walk's path, with the pages found below it so far. */
    private static final class Node {
        final COSDictionary dict;
        final List<COSDictionary> kids = new ArrayList<>();
        int next;
        long pages;

        Node(COSDictionary dict) {
            this.dict = dict;
            COSArray array = dict.getCOSArray(COSName.KIDS);
            if (array != null) {
                for (int i = 0; i < array.size(); i++) {
                    COSBase kid = array.getObject(i);
                    if (kid instanceof COSDictionary d) {
                        kids.add(d);
                    }
                }
            }
        }
    }

    /**
     * What keeps the tree under {@code root} from being one, as the end of a sentence ("has a cycle
     * (a node is its own ancestor)"), or null when it is one. Iterative, so a deep tree cannot
     * overflow the stack; each node is visited once, so the work is bounded by the PDF's objects.
     */
    static String check(COSDictionary root) {
        Set<COSDictionary> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Set<COSDictionary> path = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Node> walk = new ArrayDeque<>();
        seen.add(root);
        path.add(root);
        walk.push(new Node(root));
        while (true) {
            Node n = walk.peek();
            if (n.next < n.kids.size()) {
                COSDictionary kid = n.kids.get(n.next++);
                if (path.contains(kid)) {
                    return "has a cycle (a node is its own ancestor)";
                }
                if (!seen.add(kid)) {
                    return "lists one node twice";
                }
                if (isNode(kid)) {
                    path.add(kid);
                    walk.push(new Node(kid));
                } else {
                    n.pages++;
                }
                continue;
            }
            walk.pop();
            path.remove(n.dict);
            int count = n.dict.getInt(COSName.COUNT, 0);
            if (count != n.pages) {
                return "says it holds "
                        + count
                        + " pages; it holds "
                        + n.pages
                        + (walk.isEmpty() ? "" : " (a node below the root)");
            }
            if (walk.isEmpty()) {
                return null;
            }
            walk.peek().pages += n.pages;
        }
    }

    private static boolean isNode(COSDictionary d) {
        return COSName.PAGES.equals(d.getCOSName(COSName.TYPE)) || d.containsKey(COSName.KIDS);
    }
}
