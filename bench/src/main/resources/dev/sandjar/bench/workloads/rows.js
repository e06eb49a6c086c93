return rows;
