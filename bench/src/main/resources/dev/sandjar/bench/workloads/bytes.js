return buf;
