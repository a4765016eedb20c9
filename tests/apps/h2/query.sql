-- One round of the H2 app test's load: grouping, sorting, a join and string matching, in the server.
SELECT customer, COUNT(*), SUM(amount), MAX(label) FROM orders GROUP BY customer ORDER BY 3 DESC;
SELECT c.name, SUM(o.amount) FROM orders o JOIN customers c ON o.customer = c.id WHERE o.label LIKE '%7-order'
  GROUP BY c.name ORDER BY 2 DESC LIMIT 10;
SELECT label FROM orders WHERE amount > 99.5 ORDER BY label DESC LIMIT 20;
