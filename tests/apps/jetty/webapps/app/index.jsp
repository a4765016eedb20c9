<%@ page import="java.util.*,java.util.regex.*" %><%
  // A page that does what server pages do: build, sort and match strings (the JDK's TimSort and regex).
  Random random = new Random(request.getQueryString() == null ? 1 : request.getQueryString().hashCode());
  List<String> words = new ArrayList<>();
  for (int i = 0; i < 2000; i++) words.add(Long.toString(random.nextLong() & 0xffffffffL, 36));
  Collections.sort(words);
  Pattern pattern = Pattern.compile("[a-f]+[0-9]");
  int matches = 0;
  for (String word : words) if (pattern.matcher(word).find()) matches++;
%><html><body>words <%= words.size() %> first <%= words.get(0) %> matches <%= matches %></body></html>
